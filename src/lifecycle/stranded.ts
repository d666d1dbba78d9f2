/**
 * Whether a start event has stranded episodes to recover, answered from the open records alone
 * (no ledger read, nothing of the close loaded): the start hook asks this on every event.
 */
import { sameCheckout } from "../repo/where.ts";
import { now, parseDuration, parseIsoTime } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { listOpen, type ReadEpisode } from "../session/store.ts";

/** This checkout's open episodes (other than `except`) that opened before `cutoff` (ms). */
export async function openedBefore(here: Workspace, cutoff: number, except?: string): Promise<Array<{ key: string } & ReadEpisode>> {
  return (await listOpen(here.layer)).filter((o) => o.episode && sameCheckout(o.episode, here.position) && o.episode.session_id !== except && (parseIsoTime(o.episode.opened_at)?.getTime() ?? 0) < cutoff);
}

/**
 * How many open episodes in this checkout (other than `except`) opened longer ago than
 * `session.stranded_after`: a look at the open records only, without reading the ledger. Zero
 * means no recovery can close anything now.
 */
export async function strandedCandidates(here: Workspace, policy: LoadedPolicy | undefined, except?: string): Promise<number> {
  const ms = parseDuration(policy?.policy.session?.stranded_after ?? "");
  if (ms === undefined) return 0;
  return (await openedBefore(here, now().getTime() - ms, except)).length;
}
