/**
 * Finishing a claimed close, exactly once whoever does it: gather, plan (close-plan.ts, pure), commit. The end hook
 * does it after taking the claim; if it died, the next event, `recover`, `session close` or `doctor --fix` does it
 * from the claim. A derived record a killed closer already wrote is not written again, and the close is idempotent
 * (close.ts).
 */
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { keyOf } from "../session/keys.ts";
import { episodePath, listOpen, readEpisode, type OpenEpisode } from "../session/store.ts";
import { inProgress, readClaims, releaseClaim, type Claim } from "./claim.ts";
import { writeClose, type Closed } from "./close.ts";
import { gatherEpisode } from "../facts/episode.ts";
import type { Slots } from "./close-plan.ts";
import { reserveSeqs, storeOf } from "../records/store.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import type { Entry } from "../ledger/line.ts";

export type Finished = { episodeId: string; result: Closed["status"] | "gone"; path?: string };

async function episodeOf(ws: Workspace, claim: Claim): Promise<OpenEpisode | undefined> {
  if (claim.provider_session !== "") {
    const read = await readEpisode(episodePath(ws.layer, keyOf(claim)));
    if (read.episode?.session_id === claim.session_id) return read.episode;
  }
  return (await listOpen(ws.layer)).find((o) => o.episode?.session_id === claim.session_id)?.episode;
}

/** The episode's facts, window and ground; undefined when nothing can be derived (it closes as it is). */
async function gatherClose(ws: Workspace, episode: OpenEpisode, policy: LoadedPolicy | undefined) {
  if (!policy) return undefined;
  const [{ gatherForRecords }, { CHECKPOINT_NEEDS, HANDOVER_NEEDS }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/derived.ts"),
  ]);
  try {
    const facts = await gatherForRecords(ws, [...CHECKPOINT_NEEDS, ...HANDOVER_NEEDS, "window"], { window: episode });
    if (!facts.window) return undefined;
    const ground = {
      position: facts.position,
      episodeId: episode.session_id,
      task: facts.task,
      snapshot: facts.snapshot,
      writtenAt: stamp(),
    };
    return { facts: { ...facts, window: facts.window }, ground };
  } catch (err) {
    log.warn(`nothing could be derived for ${episode.session_id}: ${(err as Error).message}`);
    return undefined;
  }
}

export type Settle = (entries: readonly Entry[] | undefined) => Promise<number>;

/** `held`: the episode read, when nothing could change it; `settle`: given the ledger lines (then gathers again). */
export async function finishClose(
  ws: Workspace,
  claim: Claim,
  policy: LoadedPolicy | undefined,
  held?: OpenEpisode,
  settle?: Settle,
): Promise<Finished> {
  let episode = held?.session_id === claim.session_id ? held : await episodeOf(ws, claim);
  let gathered = episode && (await gatherClose(inEpisode(ws, episode), episode, policy));
  if (episode && settle && (await settle(gathered?.facts.window.entries)) > 0) {
    episode = await episodeOf(ws, claim);
    gathered = episode && (await gatherClose(inEpisode(ws, episode), episode, policy));
  }
  if (!episode) {
    releaseClaim(ws.layer, claim.session_id);
    return { episodeId: claim.session_id, result: "gone" };
  }
  return closeIn(inEpisode(ws, episode), episode, claim, policy, gathered);
}

/** The close's record numbers, drawn in one span of the records lock before it writes; none (no lock) for none. */
function slotsFor(ws: Workspace, writes: { checkpoint: boolean; handover: boolean }): Slots {
  const kinds = (["checkpoint", "handover"] as const).filter((k) => writes[k]);
  if (kinds.length === 0) return {};
  const stores = kinds.map((k) => storeOf(ws.layer, RECORD_KINDS[k]));
  const other = storeOf(ws.layer, RECORD_KINDS[kinds[0] === "checkpoint" ? "handover" : "checkpoint"]).dir;
  const seqs = reserveSeqs(stores[0]!, [other], kinds.length);
  return Object.fromEntries(kinds.map((k, i) => [k, { dir: stores[i]!.dir, seq: seqs[i]! }]));
}

async function closeIn(
  ws: Workspace,
  episode: OpenEpisode,
  claim: Claim,
  policy: LoadedPolicy | undefined,
  gathered: Awaited<ReturnType<typeof gatherClose>>,
): Promise<Finished> {
  const [{ closeWrites, planClose }, { writePlanned }] = await Promise.all([
    import("./close-plan.ts"),
    import("./records.ts"),
  ]);
  const plan = await planClose(gathered, gathered ? slotsFor(ws, closeWrites(gathered)) : {});
  // The commit, in the plan's order. Anything but a ruled-out record (a lock held, a full disk)
  // fails the close, and the claim has it finished later.
  // The handover moves the task's clock past the checkpoint's: one read of the task, one write.
  const moves = plan.handover && !("ruledOut" in plan.handover) && plan.handover.planned.task !== undefined;
  for (const step of [plan.checkpoint, plan.handover]) {
    if (!step) continue;
    if ("ruledOut" in step) {
      log.warn(
        `the closing ${step.noun} of ${episode.session_id} was not written (${step.ruledOut}); the episode is closed without it`,
      );
      continue;
    }
    const done = await writePlanned(
      ws,
      step === plan.checkpoint && moves ? { ...step.planned, task: undefined } : step.planned,
    );
    if (done.kind.name === "handover") log.info(`continuation written to ${done.relativePath}`);
  }
  // Nothing gathered (no policy, or the gathering failed): the close reads the episode's window alone.
  const window = plan.window ?? (await gatherEpisode(ws, episode));
  const closed = await writeClose(ws, episode, window, {
    outcome: claim.outcome,
    providerSession: episode.provider_session === "none" ? undefined : episode.provider_session,
    reason: claim.reason,
    policy,
  });
  if (closed.status === "closed")
    log.info(
      `episode ${episode.session_id} closed (${claim.outcome}, ` +
        `reason ${claim.reason ?? "none"}) into ${closed.path}${closed.committed ? ` (committed ${closed.committed.slice(0, 7)})` : ""}`,
    );
  return {
    episodeId: claim.session_id,
    result: closed.status,
    path: closed.status === "closed" ? closed.path : undefined,
  };
}

export function unfinishedClaims(ws: Workspace): Claim[] {
  return readClaims(ws.layer).flatMap((r) => (r.claim && !inProgress(r.claim) ? [r.claim] : []));
}

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
