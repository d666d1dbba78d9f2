/** Reading the ledger back: `majordomus history` and its --validate and --rotate modes. */
import { basename, dirname, join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { publishNew, writeFileAtomic } from "../lib/fsx.ts";
import { withLock } from "../lib/lock.ts";
import { wall, compactStamp, isIsoTime, parseIsoTime } from "../lib/clock.ts";
import { eventRegistry } from "./events.ts";
import type { Entry, Parsed } from "./line.ts";
import {
  appendEvent,
  ledgerSize,
  newestFirst,
  oldestFirst,
  readLedgerText,
  type AppendContext,
  type Ledger,
} from "./store.ts";

export type Query = { event?: string; since?: Date; limit: number };
export type QueryResult = { entries: Array<{ entry: Entry; text: string }>; malformed: number };

export async function assertKnownEvent(event: string): Promise<void> {
  const registry = await eventRegistry();
  if (!registry.has(event)) {
    throw new Failure("usage", `unknown event "${event}"`, `use one of: ${[...registry.keys()].sort().join(", ")}`);
  }
}

export async function query(ledger: Ledger, q: Query): Promise<QueryResult> {
  if (q.event !== undefined) await assertKnownEvent(q.event);
  const picked: Array<{ entry: Entry; text: string }> = [];
  let malformed = 0;
  if (q.limit <= 0) return { entries: picked, malformed };
  for (const parsed of newestFirst(ledger.path)) {
    if (!parsed.ok) {
      malformed++;
      continue;
    }
    if (q.event !== undefined && parsed.entry.event !== q.event) continue;
    if (q.since !== undefined) {
      const at = parseIsoTime(parsed.entry.ts);
      if (!at || at < q.since) continue;
    }
    picked.push({ entry: parsed.entry, text: parsed.text });
    if (picked.length >= q.limit) break;
  }
  return { entries: picked.reverse(), malformed };
}

export type Finding = { line: number; problem: string };

/** Checks lines one at a time; `problems` counts all, `findings` holds the first `keep`. */
export type LineChecker = {
  check(row: Parsed & { line: number }): void;
  result(): { lines: number; findings: Finding[]; problems: number };
};

export async function lineChecker(
  seed: { lines: number; findings: readonly Finding[]; problems?: number } = { lines: 0, findings: [] },
  keep = Number.POSITIVE_INFINITY,
): Promise<LineChecker> {
  const registry = await eventRegistry();
  const findings: Finding[] = seed.findings.slice(0, keep);
  let problems = seed.problems ?? seed.findings.length;
  let lines = seed.lines;
  const found = (line: number, problem: string) => {
    problems++;
    if (findings.length < keep) findings.push({ line, problem });
  };
  return {
    check(row) {
      lines = row.line;
      if (!row.ok) {
        found(row.line, `malformed: ${row.reason}`);
        return;
      }
      if (!isIsoTime(row.entry.ts)) found(row.line, `ts ${JSON.stringify(row.entry.ts)} is not an ISO time`);
      const spec = registry.get(row.entry.event);
      if (!spec) {
        found(row.line, `unknown event "${row.entry.event}" (not in share/events.yaml)`);
        return;
      }
      for (const key of spec.requires) {
        if (row.entry[key] === undefined) found(row.line, `event "${row.entry.event}" lacks required field "${key}"`);
      }
    },
    result: () => ({ lines, findings, problems }),
  };
}

export async function validateLedger(ledger: Ledger): Promise<{ lines: number; findings: Finding[] }> {
  const checker = await lineChecker();
  for (const row of oldestFirst(ledger.path)) checker.check(row);
  const { lines, findings } = checker.result();
  return { lines, findings };
}

export type Rotation =
  { rotated: false; lines: number; keep: number } | { rotated: true; archived: number; kept: number; archive: string };

/** `ledger.<UTC stamp>-<nn>.archived.jsonl`, the first free name: in the order made, never overwritten. */
function publishArchive(dir: string, text: string): string {
  const stamp = compactStamp(wall());
  for (let n = 1; n < 100; n++) {
    const archive = join(dir, `ledger.${stamp}-${String(n).padStart(2, "0")}.archived.jsonl`);
    if (publishNew(archive, text, 0o600)) return archive;
  }
  throw new Failure(
    "refused",
    `99 ledger archives already carry the stamp ${stamp}`,
    "wait a second and run `majordomus history --rotate` again",
  );
}

const ROTATE_WAIT_MS = 10_000;

/**
 * Keep `keep` lines (the newest `keep - 1` and the `ledger.rotated` line) and move the rest byte for byte into an
 * archive, complete before the ledger is replaced: a crash leaves lines in both places, never in neither.
 */
export async function rotate(ws: AppendContext, keep: number): Promise<Rotation> {
  const ledger = ws.ledger;
  const result = withLock(ledger.lock, ROTATE_WAIT_MS, () => {
    const text = readLedgerText(ledger.path);
    const size = ledgerSize(ledger.path);
    const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
    if (lines.length <= keep) return { rotated: false as const, lines: lines.length, keep };
    const cut = lines.length - (keep - 1);
    const archive = publishArchive(dirname(ledger.path), `${lines.slice(0, cut).join("\n")}\n`);
    if (ledgerSize(ledger.path) !== size) {
      throw new Failure(
        "refused",
        `${ledger.path} changed during rotation (an append ignored the lock)`,
        `nothing was lost: ${archive} holds a copy of the older lines; remove it and run --rotate again`,
      );
    }
    const rest = lines.slice(cut);
    writeFileAtomic(ledger.path, rest.length > 0 ? `${rest.join("\n")}\n` : "", 0o600);
    return { rotated: true as const, archived: cut, kept: keep - 1, archive };
  });
  if (!result.acquired)
    throw new Failure("refused", `ledger lock ${ledger.lock} is held by a running majordomus`, "retry in a moment");
  const done = result.value;
  if (done.rotated) {
    await appendEvent(ws, "ledger.rotated", {
      archived: done.archived,
      kept: done.kept,
      archive: basename(done.archive),
    });
  }
  return done;
}
