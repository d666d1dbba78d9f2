/**
 * doctor's check of the closed records in parts: a shared cursor hands each record to exactly one
 * thread, and the parts' findings read as one check's, whichever thread read which record. The
 * two-thread case runs a real worker thread beside this one, over a real folder of records.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedCursor, taker } from "../../src/lib/shared-cursor.ts";
import { checkClosedPart, closedFindings, type ClosedPart } from "../../src/health/closed-scan.ts";
import { readBeside, valueOf } from "../../src/health/beside.ts";
import { Verdicts } from "../../src/health/verdicts.ts";

const root = mkdtempSync(join(tmpdir(), "majordomus-closed-scan-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every index `take` hands out until the list is done. */
function drain(take: () => number, length: number): number[] {
  const out: number[] = [];
  for (let i = take(); i < length; i = take()) out.push(i);
  return out;
}

describe("a list two threads work through together", () => {
  const names = ["a.md", "b.md", "c.md", "d.md", "e.md"];

  test("alone (no shared memory), a thread takes every item in order", () => {
    expect(drain(taker(undefined, names)!, names.length)).toEqual([0, 1, 2, 3, 4]);
  });

  test("two takers of the same list share one cursor: each item goes to exactly one of them", () => {
    const buffer = sharedCursor()!;
    const first = taker(buffer, names)!;
    const second = taker(buffer, [...names])!;
    const got = [first(), second(), first(), first(), second()];
    expect(got.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(first()).toBeGreaterThanOrEqual(names.length);
    expect(second()).toBeGreaterThanOrEqual(names.length);
  });

  test("a thread whose list differs from the first one's takes no part, and the first takes all", () => {
    for (const other of [
      [...names, "f.md"],
      ["a.md", "b.md", "c.md", "d.md", "x.md"],
    ]) {
      const buffer = sharedCursor()!;
      const first = taker(buffer, names)!;
      expect(taker(buffer, other)).toBeUndefined();
      expect(drain(first, names.length)).toEqual([0, 1, 2, 3, 4]);
    }
  });
});

const fail = (subject: string, message: string) => ({
  level: "FAIL" as const,
  category: "sessions",
  subject,
  message,
  reproduce: "majordomus session list --all",
});

describe("the closed records' findings from their parts", () => {
  test("said in the records' order whichever part found them; an episode recorded in both parts is found twice; the tally counts both", () => {
    const worker: ClosedPart = { found: [[3, fail("r3", "no front matter")]], ids: ["s-1", "s-2"], rejected: 1 };
    const main: ClosedPart = { found: [[1, fail("r1", "no front matter")]], ids: ["s-2", "s-3"], rejected: 1 };
    const said = closedFindings([worker, main]);
    expect(said.map((f) => f.subject)).toEqual(["r1", "r3", "s-2"]);
    expect(said[2]!.message).toBe("2 closed records for one episode");
    const clean = closedFindings([
      { ...worker, found: [], rejected: 0 },
      { ...main, found: [], rejected: 0 },
    ]);
    expect(clean.at(-1)!.message).toBe("4 closed record(s), session/v1, no conversation keys");
  });
});

/** A closed record as a close writes it (front matter only matters here). */
function record(dir: string, n: number, id = `s-20260601000000-${String(n).padStart(12, "0")}`): void {
  const at = new Date(Date.UTC(2026, 5, 1) + n * 1_000).toISOString();
  writeFileSync(
    join(dir, `${at.replace(/[-:.]/g, "")}--${id}.md`),
    `---\nschema: session/v1\nsession_id: ${id}\nprovider: claude-code\nprovider_session: p-${n}\nopened_by: hook\nworker: none\nopened_at: "${at}"\nclosed_at: "${at}"\noutcome: interrupted\nbranch: main\nstart_head: NONE\nend_head: NONE\ncommits: []\nchanged_files: []\ntasks: []\ncheckpoints: []\nhandovers: []\ndecisions: []\nquestions: []\n---\n\n# What Happened\n\nTest.\n`,
  );
}

describe("the closed records read by two threads at once", () => {
  test("every record is read by exactly one thread, and the findings are those of one thread reading them all", async () => {
    const worktree = mkdtempSync(join(root, "repo-"));
    const dir = join(worktree, ".ai", "repo", "sessions");
    mkdirSync(dir, { recursive: true });
    const COUNT = 3_000;
    for (let n = 0; n < COUNT; n++) record(dir, n);
    // One episode with two records, and one file that is no record.
    record(dir, COUNT, "s-20260601000000-000000000007");
    writeFileSync(join(dir, "20260601T000000000Z--broken.md"), "no front matter\n");
    const empty = join(worktree, "none");
    /** The worker's part and this thread's, read at once over one cursor. */
    const pair = async () => {
      const cursor = sharedCursor();
      const verdicts = new Verdicts(undefined, "v");
      const there = readBeside(
        {
          ledger: { path: join(empty, "ledger.jsonl"), running: [] },
          closed: { dir, cursor },
          prompts: { dir: empty },
          worktree,
          verdicts: { vocabulary: "v" },
        },
        async () => ({ verdicts }),
      );
      const here = await checkClosedPart(dir, worktree, verdicts, cursor);
      const read = await there;
      expect(read.thread).toBe("worker");
      return { beside: valueOf(read.closed), here };
    };
    // Which thread comes first, and how much each reads, is the machine's to say: a few tries for a
    // run where both read some (there, a record read twice or by neither shows in the tally).
    let { beside, here } = await pair();
    for (let tries = 0; tries < 4 && (beside.ids.length === 0 || here.ids.length === 0); tries++)
      ({ beside, here } = await pair());
    expect(beside.ids.length).toBeGreaterThan(0);
    expect(here.ids.length).toBeGreaterThan(0);
    const together = closedFindings([beside, here]);
    const alone = closedFindings([await checkClosedPart(dir, worktree, new Verdicts(undefined, "v"))]);
    expect(together).toEqual(alone);
    expect(beside.ids.length + here.ids.length).toBe(COUNT + 1);
    expect(beside.rejected + here.rejected).toBe(1);
    expect(together.map((f) => f.subject)).toEqual([
      ".ai/repo/sessions/20260601T000000000Z--broken.md",
      "s-20260601000000-000000000007",
    ]);
  });
});
