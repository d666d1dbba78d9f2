// What a record's text cites (records/claims.ts), and the pure readers of git's answers the check
// labels them from (records/claims-check.ts), in process over hand-written text.
import { describe, expect, test } from "bun:test";
import { CLAIMS_KEPT, claimsIn, claimText, parseClaim } from "../../src/records/claims.ts";
import { parseDiff, parseLogCounts } from "../../src/records/claims-check.ts";
import { findRange, fingerprint } from "../../src/records/ranges.ts";
import { lineMap, linesChanged, MAPS_KEPT, readLineMaps, writeLineMaps } from "../../src/records/lines.ts";
import { loadLayer } from "../../src/layer/manifest.ts";
import { layered } from "../support/layered.ts";
import { readdirSync } from "node:fs";

const texts = (body: string) => claimsIn(body).map(claimText);

describe("what a record's text cites", () => {
  test("paths as code or in running text, with a line or a range; symbols beside the nearest path", () => {
    expect(
      texts(
        "Edited `src/a.ts:40-58` and `parseArgs` in `src/b.ts`.\nThen fix src/lib/c.ts:12, and `README.md`.\n`./docs/x.md`",
      ),
    ).toEqual([
      "path src/a.ts:40-58",
      "path src/b.ts",
      "symbol src/b.ts parseArgs",
      "path README.md",
      "path src/lib/c.ts:12",
      "path docs/x.md",
    ]);
  });

  test("commits and package scripts; a version, a URL, an absolute path and `..` are not claims", () => {
    expect(
      texts(
        "See commit 1a2b3c4d and `9f8e7d6`. Run `npm test`, `npm run build`, `pnpm lint`, not `npm install` or `pnpm add x`.\n" +
          "Version 0.1.0 of `v1.2`, https://example.com/a/b.html, /etc/passwd.conf, ../up/x.ts, `deadbeef` (no digit: 'deadbeef' is a word).",
      ),
    ).toEqual(["commit 9f8e7d6", "script npm test", "script npm run build", "script pnpm lint", "commit 1a2b3c4d"]);
  });

  test("a hex word is a commit only as code or on a line that says commit", () => {
    expect(texts("the cafe1234 colour")).toEqual([]);
    expect(texts("the commit cafe1234 landed")).toEqual(["commit cafe1234"]);
  });

  test("each claim once, at most CLAIMS_KEPT, and a text that cites nothing has none", () => {
    expect(texts("`src/a.ts` and src/a.ts and `src/a.ts`")).toEqual(["path src/a.ts"]);
    const many = Array.from({ length: 40 }, (_, i) => `src/f${i}.ts`).join(" ");
    expect(claimsIn(many).length).toBe(CLAIMS_KEPT);
    expect(claimsIn("Nothing here names a file; keep going.")).toEqual([]);
  });

  test("a claim read back from front matter is the claim written; an unknown one is dropped", () => {
    for (const c of claimsIn("`src/a.ts:3-9` `run` in `src/b.ts`, commit 1a2b3c4d, `npm run lint`"))
      expect(parseClaim(claimText(c))).toEqual(c);
    const marked = "path src/a.ts:3-9 @12.0123abcd.0123456789ab +0123456789abcdef";
    expect(claimText(parseClaim(marked)!)).toBe(marked);
    expect(parseClaim("path src/new.ts +none")).toEqual({ kind: "path", path: "src/new.ts", file: "none" });
    // A mark in another shape is dropped, the path kept.
    expect(parseClaim("path src/a.ts +zzz")).toEqual({ kind: "path", path: "src/a.ts" });
    expect(parseClaim("shape src/a.ts")).toBeUndefined();
    expect(parseClaim("path ../../etc/passwd")).toBeUndefined();
  });
});

describe("git's answers the check reads", () => {
  test("diff --raw --numstat -z: modified, deleted and renamed paths with their line counts", () => {
    const out = [
      ":100644 100644 aaa bbb M",
      "src/a.ts",
      ":100644 000000 aaa 000 D",
      "src/c.ts",
      ":100644 100644 aaa aaa R100",
      "src/d.ts",
      "src/e.ts",
      "3\t1\tsrc/a.ts",
      "0\t5\tsrc/c.ts",
      "0\t0\t",
      "src/d.ts",
      "src/e.ts",
      "",
    ].join("\0");
    const diff = parseDiff(out);
    expect(diff.get("src/a.ts")).toEqual({ status: "M", added: 3, removed: 1 });
    expect(diff.get("src/c.ts")).toEqual({ status: "D", added: 0, removed: 5 });
    expect(diff.get("src/d.ts")).toEqual({ status: "R", to: "src/e.ts", added: 0, removed: 0 });
  });

  test("log --name-only: the commits that touched each path", () => {
    expect(parseLogCounts("\x01aaa\n\nsrc/a.ts\n@b.ts\n\x01bbb\n\nsrc/a.ts\n")).toEqual(
      new Map([
        ["src/a.ts", 2],
        ["@b.ts", 1],
      ]),
    );
  });

  test("a cited range is found by its fingerprint: where it was, at other lines (the nearest), or changed", () => {
    const file = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    const mark = fingerprint(file, [40, 58])!;
    expect(mark).toMatch(/^7\.[0-9a-f]{8}\.[0-9a-f]{12}$/);
    expect(findRange(file, [40, 58], mark)).toEqual({ at: "same" });
    // Ten lines leave the head of the file: the range is whole, ten lines up.
    expect(findRange(file.slice(10), [40, 58], mark)).toEqual({ at: "moved", from: 30, to: 48 });
    // One line inside it changes: it is not there any more.
    const edited = file.map((l, i) => (i === 44 ? "line forty-five" : l));
    expect(findRange(edited, [40, 58], mark)).toEqual({ at: "gone" });
    // Copied twice: the copy nearest to where it was wins.
    const twice = [...file.slice(39, 58), ...file];
    expect(findRange(twice, [40, 58], mark)).toEqual({ at: "moved", from: 59, to: 77 });
    // A file without those lines gives no fingerprint.
    expect(fingerprint(file.slice(0, 50), [40, 58])).toBeUndefined();
  });

  test("lines added and removed since a line map, by the shortest edit script: the same as a longest common subsequence says", () => {
    const lcs = (a: string[], b: string[]) => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = a.length - 1; i >= 0; i--)
        for (let j = b.length - 1; j >= 0; j--)
          t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
      return t[0]![0]!;
    };
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: Math.floor(next() * 30) }, () => `line ${Math.floor(next() * 8)}`);
      const b = a.flatMap((l) => (next() < 0.2 ? [] : next() < 0.2 ? [l, `new ${Math.floor(next() * 8)}`] : [l]));
      if (next() < 0.3) b.unshift("head");
      const common = lcs(a, b);
      expect(linesChanged(lineMap(a)!, b)).toEqual({ added: b.length - common, removed: a.length - common });
    }
    expect(linesChanged(lineMap(["a", "b"])!, ["a", "b"])).toEqual({ added: 0, removed: 0 });
    expect(linesChanged(lineMap([])!, ["x", "y"])).toEqual({ added: 2, removed: 0 });
    // A file rewritten whole shares no line: every one counted, in one pass.
    const rewritten = Array.from({ length: 2_500 }, (_, i) => `const w${i} = ${i};`);
    const before = rewritten.map((l) => l.replace("w", "v"));
    expect(linesChanged(lineMap(before)!, rewritten)).toEqual({ added: 2_500, removed: 2_500 });
  });

  test("line maps are kept for the newest records only, and read back as written", async () => {
    using repo = layered();
    const layer = await loadLayer(repo.dir);
    const name = (i: number) =>
      `20261203T0900${String(i).padStart(2, "0")}000Z--${String(i).padStart(6, "0")}--main--aaaaaaa.md`;
    for (let i = 0; i < MAPS_KEPT + 6; i++) writeLineMaps(layer, name(i), { "src/a.ts": lineMap([`line ${i}`])! });
    const kept = readdirSync(repo.path(".ai/local/cache/claims")).sort();
    expect(kept.length).toBe(MAPS_KEPT);
    expect(kept[0]).toBe(`${name(6)}.json`);
    expect(readLineMaps(layer, name(MAPS_KEPT + 5))).toEqual({ "src/a.ts": lineMap([`line ${MAPS_KEPT + 5}`])! });
    expect(readLineMaps(layer, name(0))).toEqual({});
  });
});
