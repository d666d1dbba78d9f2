/**
 * Finishing a claimed close: what an end event asks for, written exactly once whoever does it.
 * The end hook does it right after taking the claim; when that hook (or its worker) died first, the
 * next event in the checkout, `recover`, `session close` or `doctor --fix` does it from the claim.
 * Each derived record is written only if the episode's ledger window does not show one written
 * since the claim (a killed closer may have written it), and the close itself is idempotent
 * (close.ts).
 */
import { log } from "../lib/log.ts";
import { isFailure } from "../lib/failure.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { episodeKey } from "../session/keys.ts";
import { episodePath, listOpen, readEpisode, type OpenEpisode } from "../session/store.ts";
import { inProgress, readClaims, releaseClaim, type Claim } from "./claim.ts";
import { closeEpisode, type Closed } from "./close.ts";

export type Finished = { sessionId: string; result: Closed["status"] | "gone"; path?: string };

/** The open episode a claim names (an older claim names only the episode id). */
async function episodeOf(ws: Workspace, claim: Claim): Promise<OpenEpisode | undefined> {
  if (claim.provider_session !== "") {
    const read = await readEpisode(
      episodePath(ws.layer, episodeKey(claim.provider_session === "none" ? undefined : claim.provider_session)),
    );
    if (read.episode?.session_id === claim.session_id) return read.episode;
  }
  return (await listOpen(ws.layer)).find((o) => o.episode?.session_id === claim.session_id)?.episode;
}

/** Whether the window already holds the `event` record a close writes (a killed closer wrote it). */
function writtenByClose(entries: ReadonlyArray<Record<string, unknown>>, event: string): boolean {
  return entries.some((e) => e.event === event && e.closing === true);
}

export async function finishClose(base: Workspace, claim: Claim, policy: LoadedPolicy | undefined): Promise<Finished> {
  const episode = await episodeOf(base, claim);
  if (!episode) {
    // Closed already (the claim outlived its close by a moment), or removed by hand: nothing left to write.
    releaseClaim(base.layer, claim.session_id);
    return { sessionId: claim.session_id, result: "gone" };
  }
  const ws: Workspace = { ...base, session: episode.session_id, episode };
  const [
    { gatherFacts, withWritten },
    { CHECKPOINT_NEEDS, HANDOVER_NEEDS, deriveCheckpoint, deriveHandover },
    { requiredSections, writeRecord },
    { RECORD_KINDS },
  ] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/derived.ts"),
    import("./records.ts"),
    import("../records/kinds.ts"),
  ]);
  let facts = policy
    ? await gatherFacts(ws, [...CHECKPOINT_NEEDS, ...HANDOVER_NEEDS, "window"], { window: episode }).catch(
        (err: Error) => void log.warn(`nothing could be derived for ${episode.session_id}: ${err.message}`),
      )
    : undefined;
  const entries = facts?.window?.entries ?? [];
  // A derived record the policy rules out (a required section no derivation writes, a checkpoint
  // over its line limit) is said and left out: the episode still closes. Anything else (a lock
  // held, a full disk) fails the close, and the claim has it finished later.
  const unlessRuledOut = async (noun: string, write: () => Promise<void>) => {
    try {
      await write();
    } catch (err) {
      if (!isFailure(err) || err.kind !== "contract") throw err;
      log.warn(
        `the closing ${noun} of ${episode.session_id} was not written (${err.message}); the episode is closed without it`,
      );
    }
  };
  if (
    policy &&
    facts &&
    switchOn(policy.policy, "session.checkpoint_on_compact") &&
    !writtenByClose(entries, "task.checkpoint")
  ) {
    await unlessRuledOut("checkpoint", async () => {
      const written = await writeRecord(ws, RECORD_KINDS.checkpoint, deriveCheckpoint(facts!), policy, {
        how: "derived",
        closing: true,
      });
      facts = await withWritten(facts!, "checkpoint", written.record);
    });
  }
  if (
    policy &&
    facts &&
    switchOn(policy.policy, "session.handover_on_end") &&
    !writtenByClose(entries, "task.handed_over")
  ) {
    // The continuation record attaches to the active task and leaves it active: a task outlives
    // client sessions until `finish` (or `handover --close`) ends it.
    await unlessRuledOut("continuation record", async () => {
      const written = await writeRecord(
        ws,
        RECORD_KINDS.handover,
        deriveHandover(facts!, requiredSections(policy)),
        policy,
        { how: "derived", noTask: facts!.task === undefined, closing: true },
      );
      facts = await withWritten(facts!, "handover", written.record);
      log.info(`continuation written to ${written.relativePath}`);
    });
  }
  const closed = await closeEpisode(ws, {
    outcome: claim.outcome,
    providerSession: episode.provider_session === "none" ? undefined : episode.provider_session,
    reason: claim.reason,
    policy,
    claimed: true,
    window: facts?.window,
  });
  if (closed.status === "closed")
    log.info(
      `episode ${episode.session_id} closed (${claim.outcome}, reason ${claim.reason ?? "none"}) into ${closed.path}${closed.committed ? ` (committed ${closed.committed.slice(0, 7)})` : ""}`,
    );
  return {
    sessionId: claim.session_id,
    result: closed.status,
    path: closed.status === "closed" ? closed.path : undefined,
  };
}

/** Claims in this checkout whose taker is gone: closes promised and never finished. */
export function unfinishedClaims(ws: Workspace): Claim[] {
  return readClaims(ws.layer).flatMap((r) => (r.claim && !inProgress(r.claim) ? [r.claim] : []));
}

/** Finish every close a dead taker left (oldest first); what each came to. */
export async function finishUnfinished(ws: Workspace, policy: LoadedPolicy | undefined): Promise<Finished[]> {
  const out: Finished[] = [];
  for (const claim of unfinishedClaims(ws).sort((a, b) => a.claimed_at.localeCompare(b.claimed_at))) {
    try {
      out.push(await finishClose(ws, claim, policy));
    } catch (err) {
      log.warn(`the unfinished close of ${claim.session_id} could not be finished: ${(err as Error).message}`);
    }
  }
  return out;
}
