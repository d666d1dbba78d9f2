// doctor's pass over the ledger resumes where the last run stopped: what it finds after resuming is
// what a whole read finds, and a ledger that is not the file it read is read whole again. Real
// files in a temp folder; the scan is the module doctor runs.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scanLedger } from "../../src/health/ledger-scan.ts";
import { ledgerScanOf, readBeside } from "../../src/health/beside.ts";
import { Tree } from "../../src/health/tree.ts";
import { Verdicts } from "../../src/health/verdicts.ts";
import { scratch } from "../support/repo.ts";

const dir = scratch("majordomus-ledger-scan-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const place = () => {
  n++;
  return {
    ledger: join(dir, `ledger-${n}.jsonl`),
    cache: join(dir, `scan-${n}.json`),
    fresh: join(dir, `none-${n}.json`),
  };
};

const envelope = (i: number, event: string) => ({
  ts: new Date(Date.UTC(2026, 5, 1, 0, 0, i)).toISOString(),
  event,
  head: "abc1234",
  branch: "main",
  by: "majordomus/0.1.0",
});
/** A ledger's worth of the lines doctor cares about: receipts, failures, closes, checkpoints, and some it must call malformed. */
function lineOf(i: number): string {
  const session = `s-${i % 7}`;
  const provider_event = ["start", "prompt", "compact", "end"][i % 4]!;
  switch (i % 11) {
    case 3:
      return JSON.stringify({
        ...envelope(i, "provider.event.failed"),
        session,
        provider: "claude-code",
        provider_event,
        reason: `disk full (${i})`,
      });
    case 5:
      return JSON.stringify({
        ...envelope(i, "session.closed"),
        session,
        session_id: `s-${(i + 3) % 7}`,
        record: `r-${i}.md`,
      });
    case 7:
      return JSON.stringify({ ...envelope(i, "task.checkpoint"), session, task_id: "none", path: `c-${i}.md` });
    case 9:
      return i % 2 === 0 ? "{ not json" : JSON.stringify({ ...envelope(i, "no.such.event") });
    default:
      return JSON.stringify({
        ...envelope(i, "provider.event.received"),
        session,
        provider: i % 3 === 0 ? "codex" : "claude-code",
        provider_event,
        provider_session: session,
      });
  }
}
const text = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => `${lineOf(from + k)}\n`).join("");
const plain = (s: Awaited<ReturnType<typeof scanLedger>>) => ({
  scan: { ...s.scan, failures: { ...s.scan.failures, lastSuccessAt: [...s.scan.failures.lastSuccessAt] } },
  findings: s.findings,
  problems: s.problems,
  lines: s.lines,
});

describe("doctor's ledger pass, resumed", () => {
  test("resumed at any line, it finds what a whole read finds (the first 20 line problems, which doctor shows); the second run reads only what was appended", async () => {
    const running = new Set(["end"]);
    for (const split of [1, 2, 5, 11, 23, 40, 59]) {
      const { ledger, cache, fresh } = place();
      writeFileSync(ledger, text(0, split));
      (await scanLedger(ledger, cache, running)).save();
      appendFileSync(ledger, text(split, 60));
      const resumed = await scanLedger(ledger, cache, running);
      expect(resumed.resumedAt).toBe(Buffer.byteLength(text(0, split)));
      const whole = await scanLedger(ledger, fresh, running);
      expect(whole.resumedAt).toBe(0);
      expect({ split, ...plain(resumed) }).toEqual({ split, ...plain(whole) });
    }
  });

  test("a failure before the resume point still counts until a later success; a success after it makes it history", async () => {
    const { ledger, cache } = place();
    const failure = JSON.stringify({
      ...envelope(1, "provider.event.failed"),
      session: "s-1",
      provider: "claude-code",
      provider_event: "end",
      reason: "disk full",
    });
    const receipt = (i: number) =>
      JSON.stringify({
        ...envelope(i, "provider.event.received"),
        session: "s-1",
        provider: "claude-code",
        provider_event: "end",
        provider_session: "s-1",
      });
    writeFileSync(ledger, `${receipt(0)}\n${failure}\n`);
    const first = await scanLedger(ledger, cache, new Set());
    first.save();
    expect(first.scan.failures.current.newest.map((e) => e.reason)).toEqual(["disk full"]);
    const again = await scanLedger(ledger, cache, new Set());
    expect(again.resumedAt).toBeGreaterThan(0);
    expect(again.scan.failures.current.newest.map((e) => e.reason)).toEqual(["disk full"]);
    appendFileSync(ledger, `${receipt(2)}\n`);
    const later = await scanLedger(ledger, cache, new Set());
    expect(later.scan.failures.current).toEqual({ count: 0, newest: [] });
    expect(later.scan.failures.recovered).toEqual({
      count: 1,
      newest: [expect.objectContaining({ reason: "disk full" })],
    });
  });

  test("a hook that failed on every prompt for months: counted, the newest shown, nothing held that grows with the ledger, and it converges", async () => {
    const { ledger, cache } = place();
    const N = 60_000;
    const receipt = (i: number) =>
      JSON.stringify({
        ...envelope(2 * i, "provider.event.received"),
        session: "s-1",
        provider: "claude-code",
        provider_event: "prompt",
        provider_session: "s-1",
      });
    const failure = (i: number) =>
      JSON.stringify({
        ...envelope(2 * i + 1, "provider.event.failed"),
        session: "s-1",
        provider: "claude-code",
        provider_event: "prompt",
        reason: `disk full (${i})`,
      });
    const end = (i: number) =>
      JSON.stringify({
        ...envelope(2 * i, "provider.event.received"),
        session: `s-${i}`,
        provider: "claude-code",
        provider_event: "end",
        provider_session: `s-${i}`,
      });
    const lines: string[] = [];
    // Every prompt fails, and one episode had its end delivered a thousand times without a record.
    for (let i = 0; i < N; i++)
      lines.push(receipt(i), failure(i), ...(i % 60 === 0 ? [end(7)] : []), ...(i % 100 === 0 ? ["{ torn"] : []));
    writeFileSync(ledger, `${lines.join("\n")}\n`);
    const failing = await scanLedger(ledger, cache, new Set());
    expect(failing.scan.failures.current.count).toBe(N);
    expect(failing.scan.failures.current.newest.length).toBe(20);
    expect(failing.scan.failures.current.newest.at(-1)?.reason).toBe(`disk full (${N - 1})`);
    expect(failing.scan.unclosedEnds.map((e) => e.session)).toEqual(["s-7"]);
    expect([failing.findings.length, failing.problems]).toEqual([20, N / 100]);
    failing.save();
    // What is kept between runs is bounded too.
    expect(readFileSync(cache, "utf8").length).toBeLessThan(40_000);
    appendFileSync(ledger, `${receipt(N)}\n`);
    const recovered = await scanLedger(ledger, cache, new Set());
    expect(recovered.resumedAt).toBeGreaterThan(0);
    expect(recovered.scan.failures.current.count).toBe(0);
    expect(recovered.scan.failures.recovered.count).toBe(N);
    expect(recovered.scan.failures.recovered.newest.at(-1)?.reason).toBe(`disk full (${N - 1})`);
    expect([recovered.findings.length, recovered.problems]).toEqual([20, N / 100]);
  });

  test("a rotated ledger (another file), a rewritten one (other bytes before the offset) and a shorter one are read whole", async () => {
    const { ledger, cache } = place();
    writeFileSync(ledger, text(0, 30));
    (await scanLedger(ledger, cache, new Set())).save();
    // Rotation: the ledger is replaced by a new file that starts with lines it never had.
    writeFileSync(`${ledger}.new`, text(100, 140));
    renameSync(`${ledger}.new`, ledger);
    const rotated = await scanLedger(ledger, cache, new Set());
    expect(rotated.resumedAt).toBe(0);
    expect(rotated.lines).toBe(40);
    rotated.save();
    // Rewritten in place (same inode), same length: the bytes before the offset differ.
    const before = readFileSync(ledger, "utf8");
    writeFileSync(ledger, before.replace(lineOf(139), lineOf(139).replace("abc1234", "def5678")));
    const rewritten = await scanLedger(ledger, cache, new Set());
    expect(rewritten.resumedAt).toBe(0);
    rewritten.save();
    // Truncated: shorter than where the last run stopped.
    writeFileSync(ledger, text(100, 110));
    const shorter = await scanLedger(ledger, cache, new Set());
    expect(shorter.resumedAt).toBe(0);
    expect(shorter.lines).toBe(10);
  });

  test("a last line still being written is read again next time, and a cache that is not doctor's own is no cache", async () => {
    const { ledger, cache } = place();
    const last = lineOf(3);
    writeFileSync(ledger, `${text(0, 3)}${last.slice(0, 20)}`);
    const partial = await scanLedger(ledger, cache, new Set());
    expect(partial.findings.at(-1)?.problem).toContain("malformed");
    partial.save();
    appendFileSync(ledger, `${last.slice(20)}\n`);
    const completed = await scanLedger(ledger, cache, new Set());
    expect(completed.resumedAt).toBe(0);
    expect(completed.findings.filter((f) => f.line === 4)).toEqual([]);
    expect(completed.scan.failures.current.newest.map((e) => e.reason)).toEqual(["disk full (3)"]);
    completed.save();
    // doctor's own cache with its pass damaged: the offset and the bytes before it still match.
    const own = JSON.parse(readFileSync(cache, "utf8"));
    const damaged = [
      { ...own, state: { ...own.state, ends: 5 } },
      { ...own, state: { ...own.state, open: [["kind"]] } },
      { ...own, findings: ["x"] },
      { ...own, state: null },
    ].map((c) => JSON.stringify(c));
    for (const junk of [
      "",
      "{}",
      "[1]",
      "null",
      '{"schema":"majordomus doctor ledger scan v1","ino":"x"}',
      readFileSync(ledger, "utf8"),
      ...damaged,
    ]) {
      writeFileSync(cache, junk);
      const read = await scanLedger(ledger, cache, new Set());
      expect({ junk, resumedAt: read.resumedAt, lines: read.lines }).toEqual({ junk, resumedAt: 0, lines: 4 });
    }
  });

  test("a cache another build wrote (one that knew other events) is not resumed: its verdicts are judged anew", async () => {
    const { ledger, cache } = place();
    writeFileSync(ledger, text(0, 30));
    (await scanLedger(ledger, cache, new Set())).save();
    expect((await scanLedger(ledger, cache, new Set())).resumedAt).toBeGreaterThan(0);
    const own = JSON.parse(readFileSync(cache, "utf8"));
    // The older build called a line bad that this one knows: its finding must not survive.
    writeFileSync(
      cache,
      JSON.stringify({ ...own, vocabulary: "fewer events", findings: [{ line: 1, problem: 'unknown event "x"' }] }),
    );
    const read = await scanLedger(ledger, cache, new Set());
    expect(read.resumedAt).toBe(0);
    expect(read.findings.map((f) => f.problem)).not.toContain('unknown event "x"');
  });
});

/** The pass on a second thread, as doctor asks for it (no closed records to read here: a folder that does not exist). */
async function beside(ledger: string, cache: string, running: Set<string>) {
  const read = await readBeside(
    {
      ledger: { path: ledger, cacheFile: cache, running: [...running] },
      closed: { dir: join(dir, "no-sessions") },
      worktree: dir,
      verdicts: { vocabulary: "v" },
    },
    async () => ({ tree: new Tree(dir), verdicts: new Verdicts(undefined, "v") }),
  );
  return { thread: read.thread, closed: read.closed, scan: () => ledgerScanOf(read.ledger, cache) };
}

describe("doctor's ledger pass on a second thread", () => {
  test("it finds what the pass on this thread finds, first and resumed, and its cache is the one this thread would keep", async () => {
    const running = new Set(["end"]);
    const here = place();
    const there = place();
    for (const p of [here, there]) writeFileSync(p.ledger, text(0, 33));
    const read = await beside(there.ledger, there.cache, running);
    expect(read.thread).toBe("worker");
    expect(read.closed).toEqual({ value: { findings: expect.any(Array), marked: new Uint8Array() } });
    const first = read.scan();
    const inline = await scanLedger(here.ledger, here.cache, running);
    expect(plain(first)).toEqual(plain(inline));
    first.save();
    inline.save();
    const cacheOf = (p: { cache: string }) => JSON.parse(readFileSync(p.cache, "utf8"));
    expect({ ...cacheOf(there), ino: 0 }).toEqual({ ...cacheOf(here), ino: 0 });
    for (const p of [here, there]) appendFileSync(p.ledger, text(33, 60));
    const resumed = (await beside(there.ledger, there.cache, running)).scan();
    expect(resumed.resumedAt).toBe(Buffer.byteLength(text(0, 33)));
    expect(plain(resumed)).toEqual(plain(await scanLedger(here.ledger, here.cache, running)));
  });

  test("a ledger it cannot read fails there as it fails here: the same failure, thrown to the caller", async () => {
    const { ledger, cache } = place();
    mkdirSync(ledger);
    const failed = (work: () => unknown) =>
      Promise.resolve()
        .then(work)
        .then(
          () => undefined,
          (err: Error) => err,
        );
    const here = await failed(() => scanLedger(ledger, cache, new Set()));
    const read = await beside(ledger, cache, new Set());
    const there = await failed(() => read.scan());
    expect(here).toBeDefined();
    expect(there?.name).toBe("Failure");
    expect(there?.message).toBe(here!.message);
  });
});
