// The small YAML documents majordomus writes (record front matter, task and episode records): what
// emitMap writes, both YAML parsers read back to the same values.
import { describe, expect, test } from "bun:test";
import { parse as parseYamlPackage } from "yaml";
import { emitMap, scalar } from "../../src/lib/yaml-emit.ts";

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
