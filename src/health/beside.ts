/**
 * What doctor reads on a second core while this one walks the local half and reads its records
 * and prompts: the ledger's pass (ledger-scan.ts) and the closed episode records (closed-scan.ts),
 * reads that need nothing the main walk finds. One request to a worker thread (scan-worker.ts runs
 * `answer`), plain data both ways; where no worker can be had, `answer` runs on this thread and
 * the report is the same. Every part's failure is carried back as it happened, never lost.
 */
import { askWorker } from "../lib/runtime.ts";
import { Failure, isFailure, type FailureKind } from "../lib/failure.ts";
import { mark } from "../lib/trace.ts";
import { passOverLedger, saveLedgerPass, type LedgerPass, type LedgerScan } from "./ledger-scan.ts";
import { checkClosed } from "./closed-scan.ts";
import { Verdicts } from "./verdicts.ts";
import type { Finding } from "./findings.ts";

export type BesideRequest = {
  ledger: { path: string; cacheFile?: string; running: string[] };
  /** The sessions folder. */
  closed: { dir: string };
  worktree: string;
  /** The verdicts' cache and the vocabulary doctor reaches them by (doctor.ts recordVocabulary). */
  verdicts: { file?: string; vocabulary: string };
};
type Settled<T> = { value: T } | { failure: { kind: FailureKind; message: string; hint?: string } } | { error: string };
/** A check's findings, and the verdict lines it marked good, as bytes (for this thread's verdicts to adopt). */
export type Checked = { findings: Finding[]; marked: Uint8Array };
export type BesideAnswer = { ledger: Settled<LedgerPass>; closed: Settled<Checked> };

async function settle<T>(work: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { value: await work() };
  } catch (err) {
    return isFailure(err)
      ? { failure: { kind: err.kind, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } }
      : { error: String((err as Error)?.message ?? err) };
  }
}

/**
 * The work itself, on whichever thread runs it: the ledger's pass, then the closed records.
 * On a thread of its own it reads the verdicts itself and hands back the lines it marked; on the
 * caller's thread (`here`) it uses the caller's verdicts, and the lines stay where they were marked.
 */
export async function answer(request: BesideRequest, here?: { verdicts: Verdicts }): Promise<BesideAnswer> {
  const { ledger, closed, worktree } = request;
  const pass = await settle(() => passOverLedger(ledger.path, ledger.cacheFile, new Set(ledger.running)));
  const verdicts = here?.verdicts ?? new Verdicts(request.verdicts.file, request.verdicts.vocabulary);
  const checked = (findings: Finding[]) => ({ findings, marked: here ? new Uint8Array() : verdicts.handOver() });
  return {
    ledger: pass,
    closed: await settle(async () => checked(await checkClosed(closed.dir, worktree, verdicts))),
  };
}

/** A part's value, or its failure thrown here as it was thrown there. */
export function valueOf<T>(part: Settled<T>): T {
  if ("value" in part) return part.value;
  if ("failure" in part) throw new Failure(part.failure.kind, part.failure.message, part.failure.hint);
  throw new Error(part.error);
}

/** The ledger's pass as doctor uses it, with its `save()` (the cache written on this thread, only if the local half is private). */
export function ledgerScanOf(part: Settled<LedgerPass>, cacheFile: string | undefined): LedgerScan {
  const pass = valueOf(part);
  return { ...pass, save: () => saveLedgerPass(cacheFile, pass) };
}

/**
 * Start the reads on a thread beside this one; the answer never rejects (each part says how it
 * ended), and `thread` says where it ran. Where no worker can be had, the caller's `here` is
 * waited for and the reads run on this thread with it.
 */
export async function readBeside(
  request: BesideRequest,
  here: () => Promise<{ verdicts: Verdicts }>,
): Promise<BesideAnswer & { thread: "worker" | "main" }> {
  const reply = await askWorker<BesideAnswer>("health/scan-worker.ts", request);
  if ("answer" in reply) return { ...reply.answer, thread: "worker" };
  mark(`doctor: the ledger and the closed records are read on this thread (${reply.unavailable})`);
  return { ...(await answer(request, await here())), thread: "main" };
}
