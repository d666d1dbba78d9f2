/**
 * doctor's one pass over the ledger: each line checked, the hook failures and whether they converged, and receipts
 * that never got their closed record or checkpoint. Where it stopped (offset, inode, the bytes before the offset) is
 * cached, so the next run reads only what was appended; a rotated or rewritten ledger, a cache not exactly ours, or
 * one from a build knowing other events, is read whole.
 */
import { lstatSync } from "node:fs";
import { writeFileAtomic } from "../lib/fsx.ts";
import { readPlain } from "../lib/safe-read.ts";
import { PAGE } from "../lib/page.ts";
import { ledgerBytes, oldestFirst, type Entry } from "../ledger/store.ts";
import { lineChecker, type Finding as LineFinding } from "../ledger/history.ts";
import { vocabulary } from "../ledger/events.ts";

export const kindOf = (e: Entry) => `${String(e.provider)} ${String(e.provider_event)}`;

/**
 * How many entries of a kind, and the newest KEPT: a hook failing on every prompt for a month leaves tens of
 * thousands of lines, and doctor holds no more than it shows.
 */
export type Tail = { count: number; newest: Entry[] };
const KEPT = PAGE;

function added(tail: Tail | undefined, e: Entry): Tail {
  const next = tail ?? { count: 0, newest: [] };
  next.count++;
  next.newest.push(e);
  if (next.newest.length > KEPT) next.newest.shift();
  return next;
}

function merged(tails: Iterable<Tail>): Tail {
  let count = 0;
  const all: Entry[] = [];
  for (const t of tails) {
    count += t.count;
    all.push(...t.newest);
  }
  all.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  return { count, newest: all.slice(-KEPT) };
}

export type Failures = { current: Tail; recovered: Tail; lastSuccessAt: Map<string, string> };
export type Scan = { failures: Failures; unclosedEnds: Entry[]; uncheckpointed: Entry[] };

const SCHEMA = "majordomus doctor ledger scan v2";
const TAIL_BYTES = 512;
const KEPT_FINDINGS = PAGE;

type Delivery = { at: string; failed: boolean };
type State = {
  ends: Array<[string, Tail]>;
  compacts: Array<[string, Tail]>;
  current: Array<[string, Tail]>;
  recovered: Tail;
  lastSuccessAt: Array<[string, string]>;
  open: Array<[string, Delivery]>;
};
type Cache = {
  schema: string;
  vocabulary: string;
  ino: number;
  offset: number;
  line: number;
  tail: string;
  lines: number;
  problems: number;
  findings: LineFinding[];
  state: State;
};

/**
 * A failure holds until a later event of its kind is received without a failure of its own; the newest delivery
 * counts only once no handed-off work for it still runs.
 */
class Pass {
  readonly ends: Map<string, Tail>;
  readonly compacts: Map<string, Tail>;
  readonly current: Map<string, Tail>;
  recovered: Tail;
  readonly lastSuccessAt: Map<string, string>;
  readonly open: Map<string, Delivery>;

  constructor(state?: State) {
    this.ends = new Map(state?.ends);
    this.compacts = new Map(state?.compacts);
    this.current = new Map(state?.current);
    this.recovered = state?.recovered ?? { count: 0, newest: [] };
    this.lastSuccessAt = new Map(state?.lastSuccessAt);
    this.open = new Map(state?.open);
  }

  feed(e: Entry): void {
    if (e.event === "session.closed") this.ends.delete(String(e.session_id));
    else if (e.event === "task.checkpoint" && e.session) this.compacts.delete(e.session);
    else if (
      e.event === "provider.event.received" &&
      e.session &&
      (e.provider_event === "end" || e.provider_event === "compact")
    ) {
      const pending = e.provider_event === "end" ? this.ends : this.compacts;
      pending.set(e.session, added(pending.get(e.session), e));
    }
    if (e.event === "provider.event.received") {
      const kind = kindOf(e);
      succeed(this, kind);
      this.open.set(kind, { at: e.ts, failed: false });
    } else if (e.event === "provider.event.failed") {
      const kind = kindOf(e);
      const delivery = this.open.get(kind);
      if (delivery) delivery.failed = true;
      this.current.set(kind, added(this.current.get(kind), e));
    }
  }

  state(): State {
    return {
      ends: [...this.ends],
      compacts: [...this.compacts],
      current: [...this.current],
      recovered: this.recovered,
      lastSuccessAt: [...this.lastSuccessAt],
      open: [...this.open],
    };
  }

  result(running: ReadonlySet<string>): Scan {
    const end = new Pass(structuredClone(this.state()));
    for (const kind of end.open.keys()) if (!running.has(String(kind.split(" ")[1]))) succeed(end, kind);
    const newestOf = (tails: Map<string, Tail>) => [...tails.values()].map((t) => t.newest.at(-1)!).filter(Boolean);
    return {
      failures: { current: merged(end.current.values()), recovered: end.recovered, lastSuccessAt: end.lastSuccessAt },
      unclosedEnds: newestOf(end.ends),
      uncheckpointed: newestOf(end.compacts),
    };
  }
}

function succeed(pass: Pass, kind: string): void {
  const delivery = pass.open.get(kind);
  if (!delivery || delivery.failed) return;
  const failed = pass.current.get(kind);
  if (failed) pass.recovered = merged([pass.recovered, failed]);
  pass.current.delete(kind);
  pass.lastSuccessAt.set(kind, delivery.at);
}

const isTail = (value: unknown): boolean => {
  const t = value as Tail;
  return (
    typeof t === "object" &&
    t !== null &&
    Number.isSafeInteger(t.count) &&
    Array.isArray(t.newest) &&
    t.newest.length <= KEPT &&
    t.newest.every((e) => typeof e?.ts === "string" && typeof e?.event === "string")
  );
};
const pairs = (value: unknown, second: (v: unknown) => boolean = () => true): boolean =>
  Array.isArray(value) &&
  value.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string" && second(p[1]));

function readCache(file: string): Cache | undefined {
  try {
    const text = readPlain(file);
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as Cache;
    if (
      data?.schema !== SCHEMA ||
      typeof data.vocabulary !== "string" ||
      ![data.ino, data.offset, data.line, data.lines, data.problems].every(Number.isSafeInteger) ||
      typeof data.tail !== "string"
    )
      return undefined;
    if (
      !Array.isArray(data.findings) ||
      !data.findings.every((f) => Number.isSafeInteger(f?.line) && typeof f?.problem === "string")
    )
      return undefined;
    const state = data.state;
    if (!state || typeof state !== "object" || !isTail(state.recovered)) return undefined;
    return [state.ends, state.compacts, state.current].every((p) => pairs(p, isTail)) &&
      pairs(state.lastSuccessAt) &&
      pairs(state.open)
      ? data
      : undefined;
  } catch {
    return undefined;
  }
}

function resumable(cache: Cache | undefined, path: string, ino: number): Cache | undefined {
  if (!cache || cache.ino !== ino) return undefined;
  const start = Math.max(0, cache.offset - TAIL_BYTES);
  return ledgerBytes(path, start, cache.offset)?.toString("base64") === cache.tail ? cache : undefined;
}

export type LedgerPass = {
  scan: Scan;
  findings: LineFinding[];
  problems: number;
  lines: number;
  resumedAt: number;
  /** Where this pass stopped; absent when it may not be kept (an unfinished last line, no cache file). */
  cache?: Cache;
};

export type LedgerScan = LedgerPass & { save(): void };

/** Check and scan the ledger, resuming from `cacheFile` where it holds; plain data, so a worker can hand it back. */
export async function passOverLedger(
  path: string,
  cacheFile: string | undefined,
  running: ReadonlySet<string>,
): Promise<LedgerPass> {
  const seen = lstatSync(path, { throwIfNoEntry: false });
  const words = await vocabulary();
  const cached = cacheFile ? readCache(cacheFile) : undefined;
  const from = seen?.isFile() && cached?.vocabulary === words ? resumable(cached, path, Number(seen.ino)) : undefined;
  const pass = new Pass(from?.state);
  const checker = await lineChecker(
    { lines: from?.lines ?? 0, findings: from?.findings ?? [], problems: from?.problems ?? 0 },
    KEPT_FINDINGS,
  );
  let offset = from?.offset ?? 0;
  let line = from?.line ?? 0;
  for (const row of oldestFirst(path, { offset, line })) {
    checker.check(row);
    if (row.ok) pass.feed(row.entry);
    offset = row.end;
    line = row.line;
  }
  // A last line without its newline may still be being written: read again next time.
  const whole = offset > 0 && ledgerBytes(path, offset - 1, offset)?.[0] === 0x0a;
  const checked = checker.result();
  const { findings, problems, lines } = checked;
  const tail =
    cacheFile && seen?.isFile() && whole
      ? ledgerBytes(path, Math.max(0, offset - TAIL_BYTES), offset)?.toString("base64")
      : undefined;
  const cache = (ino: number, tail: string): Cache => ({
    ...{ schema: SCHEMA, vocabulary: words, ino, offset, line, tail },
    ...{ lines, problems, findings, state: pass.state() },
  });
  const resumedAt = from?.offset ?? 0;
  const kept = tail !== undefined && seen ? { cache: cache(Number(seen.ino), tail) } : {};
  return { scan: pass.result(running), findings, problems, lines, resumedAt, ...kept };
}

export function saveLedgerPass(cacheFile: string | undefined, pass: LedgerPass): void {
  if (!cacheFile || !pass.cache) return;
  try {
    writeFileAtomic(cacheFile, JSON.stringify(pass.cache), 0o600, { durable: false });
  } catch {}
}

export async function scanLedger(
  path: string,
  cacheFile: string | undefined,
  running: ReadonlySet<string>,
): Promise<LedgerScan> {
  const pass = await passOverLedger(path, cacheFile, running);
  return { ...pass, save: () => saveLedgerPass(cacheFile, pass) };
}
