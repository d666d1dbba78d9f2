/**
 * What doctor reads on a second core: the ledger's pass and the closed records, needing nothing the main walk finds.
 * Plain data both ways; where no worker can start, `answer` runs here with the same report, and every failure is
 * carried back.
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
  closed: { dir: string };
  worktree: string;
  verdicts: { file?: string; vocabulary: string };
};
type Settled<T> = { value: T } | { failure: { kind: FailureKind; message: string; hint?: string } } | { error: string };
/** Findings, and the verdict lines marked good as bytes, for this thread to adopt. */
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

/** On its own thread it reads the verdicts itself and hands back what it marked; `here`, it uses the caller's. */
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

export function valueOf<T>(part: Settled<T>): T {
  if ("value" in part) return part.value;
  if ("failure" in part) throw new Failure(part.failure.kind, part.failure.message, part.failure.hint);
  throw new Error(part.error);
}

/** With `save()`: the cache is written on this thread, only if the local half is private. */
export function ledgerScanOf(part: Settled<LedgerPass>, cacheFile: string | undefined): LedgerScan {
  const pass = valueOf(part);
  return { ...pass, save: () => saveLedgerPass(cacheFile, pass) };
}

/** The answer never rejects; `thread` says where it ran. */
export async function readBeside(
  request: BesideRequest,
  here: () => Promise<{ verdicts: Verdicts }>,
): Promise<BesideAnswer & { thread: "worker" | "main" }> {
  const reply = await askWorker<BesideAnswer>("health/scan-worker.ts", request);
  if ("answer" in reply) return { ...reply.answer, thread: "worker" };
  mark(`doctor: the ledger and the closed records are read on this thread (${reply.unavailable})`);
  return { ...(await answer(request, await here())), thread: "main" };
}
