// The small YAML documents majordomus writes (record front matter, task and episode records): what
// emitMap writes, both YAML parsers read back to the same values.
import { describe, expect, test } from "bun:test";
import { parse as parseYamlPackage } from "yaml";
import { emitMap, readOwnMap, scalar } from "../../src/lib/yaml-emit.ts";

const bunYaml = (text: string): unknown => Bun.YAML.parse(text);

/** Strings that have broken YAML writers: indicators, reserved words, numbers, spaces, breaks. */
const TRICKY = [
  "",
  " ",
  "plain",
  "two words",
  "a  b",
  "trailing ",
  " leading",
  "a: b",
  "a:b",
  "a :b",
  "ends:",
  "a #b",
  "#x",
  "a#b",
  "@types/node.d.ts",
  "-",
  "- x",
  "-foo",
  "--",
  "+x",
  "+",
  ".",
  "./x",
  "/abs/path",
  "..",
  "_x",
  "x_",
  "yes",
  "No",
  "ON",
  "off",
  "y",
  "n",
  "true",
  "False",
  "null",
  "Null",
  "~",
  "NaN",
  ".inf",
  "-.inf",
  "0",
  "007",
  "1e5",
  "1.5",
  "0x1f",
  "0o17",
  "0b101",
  "-1",
  "+1",
  "12:30",
  "2026-12-01",
  "2026-12-01T00:00:00Z",
  "[x]",
  "{x}",
  "*x",
  "&x",
  "!x",
  "|x",
  ">x",
  "%x",
  "'x",
  '"x',
  "`x",
  ",x",
  "?x",
  ":x",
  "x,y",
  "x]",
  "x}",
  "tab\there",
  "new\nline",
  "cr\rhere",
  "nul\u0000",
  "bell\u0007",
  "del\u007f",
  "nel\u0085",
  "ls\u2028",
  "bom\ufeff",
  "ž",
  "日本",
  "😀 emoji",
  "back\\slash",
  'quote"inside',
  "single'inside",
  "percent%",
  "src/a b/c.ts",
];

function randomString(seed: number): string {
  const alphabet = [
    "a",
    "Z",
    "0",
    "9",
    " ",
    "-",
    "+",
    "@",
    ":",
    "#",
    ".",
    "/",
    "_",
    '"',
    "'",
    "\\",
    "\n",
    "\t",
    "[",
    "]",
    "{",
    "}",
    ",",
    "?",
    "!",
    "&",
    "*",
    "|",
    ">",
    "%",
    "`",
    "~",
    "ž",
    "\u2028",
    "\u0085",
  ];
  let x = (seed * 2654435761) % 2 ** 32;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  const length = next() % 12;
  return Array.from({ length }, () => alphabet[next() % alphabet.length]!).join("");
}

const CORPUS = [...TRICKY, ...Array.from({ length: 2000 }, (_, i) => randomString(i + 1))];

describe("emitMap", () => {
  test("every string, written as a value and as a list item, reads back as itself with both YAML parsers", () => {
    for (const text of CORPUS) {
      const doc = emitMap([
        ["value", text],
        ["list", [text, "next"]],
      ]);
      const expected = { value: text, list: [text, "next"] };
      expect({ text, read: bunYaml(doc) }).toEqual({ text, read: expected });
      expect({ text, read: parseYamlPackage(doc) }).toEqual({ text, read: expected });
    }
  });

  test("a map of values (a record's uptake) reads back with every string inside it, with both YAML parsers", () => {
    for (const text of CORPUS) {
      const doc = emitMap([
        ["uptake", { state: "acted", named: [text, "npm test"], acted_on: [], handed: text, turn: 2 }],
        ["after", text],
      ]);
      const expected = {
        uptake: { state: "acted", named: [text, "npm test"], acted_on: [], handed: text, turn: 2 },
        after: text,
      };
      expect({ text, read: bunYaml(doc) }).toEqual({ text, read: expected });
      expect({ text, read: parseYamlPackage(doc) }).toEqual({ text, read: expected });
    }
  });

  test("numbers, booleans, null and empty lists keep their types", () => {
    const doc = emitMap([
      ["seq", 12],
      ["negative", -3],
      ["on", true],
      ["off", false],
      ["none", null],
      ["files", []],
    ]);
    expect(bunYaml(doc)).toEqual({ seq: 12, negative: -3, on: true, off: false, none: null, files: [] });
  });

  test("scalar quotes every string YAML would not read back bare, and leaves the rest bare", () => {
    for (const text of ["@x", "-", "- x", "+1", "yes", ".inf", "1.5", "a: b", "x:", "trailing "])
      expect(scalar(text)).toStartWith('"');
    for (const text of ["plain", "src/a.ts", "_x", ".hidden", "/abs", "a:b"]) expect(scalar(text)).toBe(text);
  });
});

/** Texts near the shape emitMap writes, each a way a reader in JavaScript could part from a YAML parser. */
const NEAR = [
  "a: 1\n",
  "a: -1\nb: 0\nc: -0\nd: 007\ne: +1\nf: 1e3\ng: 0x1f\nh: 1.5\ni: 123456789012345\nj: 1234567890123456\n",
  "a: yes\n",
  "a: No\n",
  "a: ON\n",
  "a: ~\n",
  "a: null\nb: true\nc: false\nd: Null\ne: TRUE\nf: y\ng: n\n",
  "a: x # a comment\n",
  "# a comment\na: x\n",
  "a: x\na: y\n",
  "a:\n",
  "a:\nb: x\n",
  "a:\n  - x\n  - 2\n  - null\n",
  "a:\n  -  x\n",
  "a:\n- x\n",
  "a:\n  - - x\n",
  "a: []\n",
  "a: [x]\n",
  "a: {x: 1}\n",
  "a: &anchor x\nb: *anchor\n",
  "a: !tag x\n",
  "a: |\n  block\n",
  "a: >\n  folded\n",
  "---\na: x\n",
  "a: x\n---\nb: y\n",
  "a: 'single'\n",
  'a: "double"\n',
  'a: "\\x41"\n',
  'a: "tab\\there"\n',
  'a: "\\u00e9\\ud83d\\ude00"\n',
  'a: "unterminated\n',
  'a: "a" "b"\n',
  'a: "a"#c\n',
  "a: x\r\n",
  "a: x \n",
  "a:\tx\n",
  "a:x\n",
  " a: x\n",
  "A: x\n",
  "a-b: x\n",
  "1a: x\n",
  "__proto__: x\n",
  "constructor: x\ntoString: y\n",
  "a: x\n\nb: y\n",
  "a: x",
  "",
  "\n",
  "a: /abs/path\nb: r-95a1d778\nc: _x\nd: a.b@c+d-e\n",
  "a: .hidden\n",
  "a: @x\n",
  "a: x:y\n",
  "a: ž\n",
];

describe("readOwnMap", () => {
  const both = (doc: string) => {
    let yaml: unknown;
    try {
      yaml = bunYaml(doc);
    } catch {
      yaml = "refused";
    }
    return yaml;
  };

  test("what emitMap writes it reads to what the YAML parsers read, without asking them where the string is quoted or bare", () => {
    let read_ = 0;
    for (const text of CORPUS) {
      const doc = emitMap([
        ["value", text],
        ["list", [text, "next"]],
        ["seq", text.length],
        ["none", null],
        ["files", []],
      ]);
      const read = readOwnMap(doc);
      if (read === undefined) continue;
      read_++;
      expect({ text, read }).toEqual({ text, read: bunYaml(doc) as Record<string, unknown> });
      expect({ text, read }).toEqual({ text, read: parseYamlPackage(doc) });
    }
    // Bare strings that open with a digit (`0`) are left to the parser; all else is read.
    expect(read_).toBeGreaterThan(CORPUS.length * 0.95);
  });

  test("a front matter as the records carry it is read without a parser", () => {
    const doc = emitMap([
      ["schema", "handover/v1"],
      ["created_at", "2026-06-01T00:00:00.000Z"],
      ["seq", 1],
      ["how", "derived"],
      ["task_id", "none"],
      ["worktree", "/work/x y/repo"],
      ["head", "958de01507685087777d408d9b2cdb1bdb3ffe37"],
      ["changed_files", ["src/a.ts", "@types/x.d.ts", "-"]],
      ["claims", []],
    ]);
    expect(readOwnMap(doc)).toBeDefined();
    expect(readOwnMap(doc)).toEqual(bunYaml(doc) as Record<string, unknown>);
  });

  test("any other text is left to the parser (undefined), or read to exactly what the parser reads", () => {
    let left = 0;
    for (const doc of [...NEAR, ...CORPUS.map((t) => `a: ${t}\n`), ...CORPUS.map((t) => `a:\n  - ${t}\n`)]) {
      const read = readOwnMap(doc);
      if (read === undefined) left++;
      else expect({ doc, read }).toEqual({ doc, read: both(doc) as Record<string, unknown> });
    }
    // Most of these are not its shape: it must have stood aside for them, not guessed.
    expect(left).toBeGreaterThan(NEAR.length / 2);
    for (const doc of [
      "a: yes\n",
      "a: ~\n",
      "a: 0x1f\n",
      "a: x # c\n",
      "a: x\na: y\n",
      "a:\n",
      "__proto__: x\n",
      "a: x\r\n",
    ])
      expect({ doc, read: readOwnMap(doc) }).toEqual({ doc, read: undefined });
    // A bare string that opens with a dot is read where a letter or `/` follows it, never where it could be a number.
    for (const doc of ["a: .hidden\n", "a: ./x\n", "a: .ai/local/session-contexts/x--s-1.md\n"]) {
      const read = readOwnMap(doc);
      expect({ doc, read }).toEqual({ doc, read: bunYaml(doc) as Record<string, unknown> });
      expect({ doc, read }).toEqual({ doc, read: parseYamlPackage(doc) });
    }
    for (const doc of ["a: .5\n", "a: .\n", "a: ..x\n", "a: ._1\n", "a: .inf\n", "a: .NAN\n", "a: .Inf\n", "a: .NaN\n"])
      expect({ doc, read: readOwnMap(doc) }).toEqual({ doc, read: undefined });
    // A line that opens with `#` is a comment wherever it stands; one after a value is the parser's.
    for (const doc of ["# an open episode\na: x\nb: .ai/y\n", "a:\n# between\n  - x\n", "a: x\n#\n"]) {
      const read = readOwnMap(doc);
      expect(read).toBeDefined();
      expect({ doc, read }).toEqual({ doc, read: bunYaml(doc) as Record<string, unknown> });
      expect({ doc, read }).toEqual({ doc, read: parseYamlPackage(doc) });
    }
    // What it reads holds no prototype trick: a key named like an Object method is a plain key.
    expect(Object.getPrototypeOf(readOwnMap("constructor: x\n"))).toBe(Object.prototype);
  });
});
