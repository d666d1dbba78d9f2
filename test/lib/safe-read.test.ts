// Reading a file of the layer: never through a symbolic link, never waiting on a FIFO, only a
// regular file. Real files in a temp folder.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { openLayerFile, readLayerEntry, readLayerFile, readPlain, unreadable } from "../../src/lib/safe-read.ts";
import { isFailure } from "../../src/lib/failure.ts";
import { newestFirst, oldestFirst } from "../../src/ledger/store.ts";
import { scratch } from "../support/repo.ts";

const dir = scratch("majordomus-safe-read-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

describe("readLayerFile and openLayerFile", () => {
  writeFileSync(at("record.md"), "words\n");
  symlinkSync(at("record.md"), at("link.md"));
  symlinkSync("/dev/zero", at("zero.md"));
  mkdirSync(at("folder.md"));
  spawnSync("mkfifo", [at("fifo.md")]);

  test("a regular file is read; a missing one is undefined to open and ENOENT to read", () => {
    expect(readLayerFile(at("record.md"))).toBe("words\n");
    expect(openLayerFile(at("missing.md"))).toBeUndefined();
    expect(() => readLayerFile(at("missing.md"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
    expect(readPlain(at("missing.md"))).toBeUndefined();
  });

  test("one file after another is read whole, the large and the small, multibyte text too; the read says the file's fstat", () => {
    const large = `${"žluťoučký kůň ".repeat(20_000)}end\n`;
    writeFileSync(at("large.md"), large);
    writeFileSync(at("small.md"), "ok\n");
    expect(readLayerFile(at("large.md"))).toBe(large);
    expect(readLayerFile(at("small.md"))).toBe("ok\n");
    expect(readLayerFile(at("large.md"))).toBe(large);
    const entry = readLayerEntry(at("small.md"));
    expect([entry.text, entry.stats.size, entry.stats.isFile()]).toEqual(["ok\n", 3, true]);
    writeFileSync(at("empty.md"), "");
    expect(readLayerFile(at("empty.md"))).toBe("");
  });

  test("a link, even to a good file or to /dev/zero, is refused and never read", () => {
    for (const name of ["link.md", "zero.md"]) {
      let thrown: unknown;
      try {
        readLayerFile(at(name));
      } catch (err) {
        thrown = err;
      }
      expect(isFailure(thrown) && thrown.kind).toBe("refused");
      expect(unreadable(thrown, at(name))).toBe(
        "unreadable: it is a symbolic link; majordomus never reads or writes through one inside its layer",
      );
      expect(readPlain(at(name))).toBeUndefined();
    }
  });

  test("a folder or a FIFO where a file belongs is named, and the FIFO is not waited on", () => {
    expect(() => readLayerFile(at("folder.md"))).toThrow("is a folder where majordomus keeps a file");
    expect(() => readLayerFile(at("fifo.md"))).toThrow("is not a regular file where majordomus keeps a file");
    expect(readPlain(at("fifo.md"))).toBeUndefined();
  });

  test("the ledger's readers, both ways, refuse a ledger that is a link to /dev/zero", () => {
    expect(() => [...oldestFirst(at("zero.md"))]).toThrow("is a symbolic link");
    expect(() => [...newestFirst(at("zero.md"))]).toThrow("is a symbolic link");
  });
});

/** The reason a line longer than the ledger's writer ever writes is malformed. */
const TOO_LONG = `longer than ${256 * 1024} bytes`;

describe("the ledger read oldest first", () => {
  // A line of JSON `bytes` long (multibyte text included), its number in it.
  const lineOf = (n: number, bytes: number) => {
    const head = `{"ts":"2026-12-01T00:00:00.000Z","event":"x","head":"h","branch":"b","by":"m","n":${n},"pad":"`;
    return `${head}${"ž".repeat(Math.max(0, Math.floor((bytes - head.length - 2) / 2)))}"}`;
  };

  test("every line comes back once, in order, with where it ends: lines across the 1 MiB chunks, one longer than a chunk (malformed: no line of the ledger is that long), a last line without its newline", () => {
    const lines = [
      ...Array.from({ length: 9000 }, (_, i) => lineOf(i, 150 + (i % 300))),
      lineOf(9000, 3 * 1024 * 1024),
      lineOf(9001, 90),
    ];
    const text = `${lines.join("\n")}`;
    writeFileSync(at("ledger.jsonl"), text);
    const rows = [...oldestFirst(at("ledger.jsonl"))];
    expect(rows.map((r) => (r.ok ? r.entry.n : r.reason))).toEqual(lines.map((_, i) => (i === 9000 ? TOO_LONG : i)));
    expect(rows.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
    let end = 0;
    const ends = lines.map((l, i) => (end += Buffer.byteLength(l) + (i < lines.length - 1 ? 1 : 0)));
    expect(rows.map((r) => r.end)).toEqual(ends);
    // Resumed where a line starts, the rows after it are the same rows.
    const from = { offset: rows[4999]!.end, line: 5000 };
    expect([...oldestFirst(at("ledger.jsonl"), from)].map((r) => [r.line, r.end])).toEqual(
      rows.slice(5000).map((r) => [r.line, r.end]),
    );
  });
});

describe("lines longer than any the ledger holds", () => {
  const line = (n: number, bytes = 120) => {
    const head = `{"ts":"2026-12-01T00:00:00.000Z","event":"x","head":"h","branch":"b","by":"m","n":${n},"pad":"`;
    return `${head}${"x".repeat(Math.max(0, bytes - head.length - 2))}"}`;
  };
  const LIMIT = 256 * 1024;

  test("first, in the middle, at the limit and last without a newline: each is one malformed row, nothing of it kept, every other line read, both ways", () => {
    const lines = [
      line(0, 3 * 1024 * 1024),
      line(1),
      line(2, LIMIT),
      line(3, LIMIT + 1),
      ...Array.from({ length: 40 }, (_, i) => line(4 + i, 40_000)),
      line(44, 700_000),
      line(45),
      line(46, 2 * 1024 * 1024 + 5),
    ];
    writeFileSync(at("long.jsonl"), lines.join("\n"));
    const want = lines.map((l, i) => (Buffer.byteLength(l) > LIMIT ? TOO_LONG : i));
    const forward = [...oldestFirst(at("long.jsonl"))];
    expect(forward.map((r) => (r.ok ? r.entry.n : r.reason))).toEqual(want);
    let end = 0;
    expect(forward.map((r) => r.end)).toEqual(
      lines.map((l, i) => (end += Buffer.byteLength(l) + (i < lines.length - 1 ? 1 : 0))),
    );
    expect(forward.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
    expect(forward.filter((r) => !r.ok).every((r) => r.text === "")).toBe(true);
    const backward = [...newestFirst(at("long.jsonl"))];
    expect(backward.map((r) => (r.ok ? r.entry.n : r.reason))).toEqual([...want].reverse());
    expect(backward.filter((r) => !r.ok).every((r) => r.text === "")).toBe(true);
    // Read about one line's text, a line nobody could have written is passed over unsaid.
    expect([...newestFirst(at("long.jsonl"), '"n":45,')].map((r) => (r.ok ? r.entry.n : r.reason))).toEqual([45]);
  });
});

describe("the ledger read newest first", () => {
  // A deterministic run of line lengths: short ones, ones across the 8 KiB to 1 MiB chunks, one longer than the largest.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const ID = "s-20261201000000-00000000abcd";
  const OTHER = "s-20261201000000-00000000abce";
  const lineOf = (n: number, bytes: number, session?: string) => {
    const head = `{"ts":"2026-12-01T00:00:00.000Z","event":"x","head":"h","branch":"b","by":"m"${session ? `,"session":"${session}"` : ""},"n":${n},"pad":"`;
    return `${head}${"ž".repeat(Math.max(0, Math.floor((bytes - head.length - 2) / 2)))}"}`;
  };
  const lines = Array.from({ length: 6000 }, (_, i) => {
    const r = next();
    const bytes =
      i === 3000 ? 1.5 * 1024 * 1024 : r < 0.02 ? 20_000 + Math.floor(next() * 90_000) : 60 + Math.floor(next() * 400);
    return lineOf(i, bytes, i === 0 || i === 5999 || r > 0.9 ? ID : r > 0.8 ? OTHER : undefined);
  });
  const numbers = (rows: Iterable<{ ok: boolean } & ({ entry: { n?: unknown } } | { text?: string })>) =>
    [...rows].map((r) => ("entry" in r ? r.entry.n : r));

  test("every line once, newest first: blank lines passed over, lines across chunks, one longer than a chunk (malformed), with or without a last newline", () => {
    for (const [name, text] of [
      ["ledger-nl.jsonl", `${lines.join("\n")}\n`],
      ["ledger-no-nl.jsonl", lines.join("\n")],
      ["ledger-blank.jsonl", `\n${lines.slice(0, 50).join("\n\n")}\n\n`],
    ] as const) {
      writeFileSync(at(name), text);
      const want = text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (Buffer.byteLength(l) > 256 * 1024 ? TOO_LONG : JSON.parse(l).n))
        .reverse();
      expect([...newestFirst(at(name))].map((r) => (r.ok ? r.entry.n : r.reason))).toEqual(want);
    }
  });

  test("read about one id: exactly the lines that hold it, newest first, wherever they fall against the chunks", () => {
    for (const name of ["ledger-nl.jsonl", "ledger-no-nl.jsonl"]) {
      const all = [...newestFirst(at(name))];
      // The line longer than any the ledger holds is not read about, whatever it holds.
      const holding = all.filter((r) => r.ok && r.text.includes(ID)).map((r) => (r.ok ? r.entry.n : undefined));
      expect(holding.length).toBeGreaterThan(500);
      expect(holding[0]).toBe(5999);
      expect(holding.at(-1)).toBe(0);
      expect(numbers(newestFirst(at(name), ID))).toEqual(holding);
      // An id no line holds reads nothing; a blank one reads every line.
      expect([...newestFirst(at(name), "s-20261201000000-ffffffffffff")]).toEqual([]);
      expect(numbers(newestFirst(at(name), "")).map(String)).toEqual(numbers(all).map(String));
    }
  });
});
