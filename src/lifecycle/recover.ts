/**
 * Stranded episodes: their client died without an end event. An open episode that opened before
 * `session.stranded_after` ago and has no ledger line since then is closed as interrupted, with its record, like any
 * other close. The policy has the only copy of the threshold: without it nothing is recovered.
 */
import { Failure } from "../lib/failure.ts";
import { now, parseDuration, parseIsoTime } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendEvent, newestFirst } from "../ledger/store.ts";
import { openedBefore } from "./stranded.ts";
import { closeEpisode } from "./close.ts";
import type { OpenEpisode } from "../session/store.ts";
import type { Finished } from "./finish.ts";

/** How many ledger lines a staleness check reads back at most (the newest are the ones that matter). */
const SCAN_LIMIT = 20_000;

export type Stranded = { episode: OpenEpisode; key: string; idleSince: string };

export async function findStranded(ws: Workspace, thresholdMs: number, except?: string): Promise<Stranded[]> {
  const cutoff = now().getTime() - thresholdMs;
  // Only an episode that opened before the cutoff can be stranded: without one, the ledger is not read.
  const open = await openedBefore(ws, cutoff, except);
  if (open.length === 0) return [];
  const lastSeen = new Map<string, number>();
  let read = 0;
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (++read > SCAN_LIMIT) break;
    if (!parsed.ok) continue;
    const at = parseIsoTime(parsed.entry.ts)?.getTime() ?? 0;
    if (at < cutoff) break;
    const id = parsed.entry.session;
    if (id && !lastSeen.has(id)) lastSeen.set(id, at);
  }
  const out: Stranded[] = [];
  for (const o of open) {
    const e = o.episode!;
    const opened = parseIsoTime(e.opened_at)?.getTime() ?? 0;
    if (opened < cutoff && !lastSeen.has(e.session_id)) out.push({ episode: e, key: o.key, idleSince: e.opened_at });
  }
  return out;
}

export type Recovery = { closed: OpenEpisode[]; left: number; threshold?: string };

/** Closes a dead taker left (claimed, never finished): `recover` finishes them, `--check` lists them. */
export async function recoverClaims(ws: Workspace, options: { check?: boolean }): Promise<Finished[]> {
  const { finishUnfinished, unfinishedClaims } = await import("./finish.ts");
  if (options.check) return unfinishedClaims(ws).map((c) => ({ episodeId: c.session_id, result: "none" as const }));
  return finishUnfinished(ws, await ws.policy().catch(() => undefined));
}

export async function recoverStranded(
  ws: Workspace,
  options: { limit: number; except?: string; olderThan?: string; check?: boolean },
): Promise<Recovery> {
  const policy = await ws.policy();
  const threshold = options.olderThan ?? policy.policy.session?.stranded_after;
  if (!threshold) {
    log.info("the policy declares no session.stranded_after; no stranded episode is recovered");
    return { closed: [], left: 0 };
  }
  const ms = parseDuration(threshold);
  if (ms === undefined) {
    if (options.olderThan !== undefined)
      throw new Failure(
        "usage",
        `--older-than ${JSON.stringify(options.olderThan)} is not a duration`,
        "give a number and a unit: s, m, h, d or w (30m, 24h, 3d, 2w)",
      );
    throw new Failure(
      "contract",
      `session.stranded_after ${JSON.stringify(threshold)} in the policy is not a duration`,
      "give a number and a unit: s, m, h, d or w (e.g. `stranded_after: 24h`); `majordomus policy` checks it",
    );
  }
  const stranded = await findStranded(ws, ms, options.except);
  if (options.check) return { closed: stranded.map((s) => s.episode), left: stranded.length, threshold };
  const closed: OpenEpisode[] = [];
  for (const s of stranded.slice(0, options.limit)) {
    const result = await closeEpisode(inEpisode(ws, s.episode), {
      outcome: "interrupted",
      providerSession: s.episode.provider_session === "none" ? undefined : s.episode.provider_session,
      reason: `stranded: no event for ${threshold}`,
      policy,
    });
    if (result.status !== "closed") continue;
    await appendEvent(ws, "session.recovered", {
      session_id: s.episode.session_id,
      reason: `no event since ${s.idleSince} (session.stranded_after ${threshold})`,
      session_path: result.path,
    });
    closed.push(s.episode);
  }
  return { closed, left: stranded.length - closed.length, threshold };
}
