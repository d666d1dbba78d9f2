/**
 * Live sessions sharing a checkout: open episodes of this worktree heard from within `session.live_within`, and those
 * of other worktrees whose task scope overlaps. Read from the local halves alone. An episode's newest ledger line
 * says when its client was last heard from; what it touched is what its newest record names, since git cannot tell
 * sessions apart in one tree.
 */
import { join } from "node:path";
import { parseDuration, parseIsoTime } from "../lib/clock.ts";
import { inScope } from "../lib/scope.ts";
import type { Layer } from "../layer/manifest.ts";
import { loadGuardedLayer } from "../layer/guard.ts";
import { ledgerOf, newestFirst } from "../ledger/store.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { readRecord } from "../records/record.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { otherWorktrees } from "../repo/worktrees.ts";
import { trackedUnder } from "../repo/tracked.ts";
import { sameCheckout } from "../repo/where.ts";
import {
  episodePath,
  listOpen,
  openNames,
  readEpisode,
  readStops,
  type OpenEpisode,
  type Stop,
} from "../session/store.ts";
import { episodeKey } from "../session/keys.ts";
import { activeTask, type Task } from "../task/record.ts";
import type { Workspace } from "../workspace/workspace.ts";

/** A checkout where dozens of clients were heard from costs its start hook what five cost. */
export const LIVE_KEPT = 5;

export type Live = {
  session_id: string;
  provider: string;
  provider_session: string;
  opened_at: string;
  last_seen: string;
  worktree: string;
  here: boolean;
  task?: Pick<Task, "id" | "task" | "scope">;
  touched?: string[];
};

export function liveWindowMs(policy: LoadedPolicy | undefined): number | undefined {
  const text = policy?.policy.session?.live_within;
  return text === undefined ? undefined : parseDuration(text);
}

export function scopesOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((p) => inScope(b, p)) || b.some((p) => inScope(a, p));
}

/**
 * Every line here is written by this machine's clock, so one from the future was forged or copied, and would announce
 * a session as live for ever.
 */
const FUTURE_SKEW_MS = 60_000;

type Heard = { last: string; providerSession?: string; record?: { kind: "checkpoint" | "handover"; path: string } };

/** Every episode heard from since `cutoff`, read from the end; one whose newest line is its close is left out. */
function heardFrom(ledgerPath: string, cutoff: number, now: number): Map<string, Heard> {
  const heard = new Map<string, Heard>();
  const closed = new Set<string>();
  for (const parsed of newestFirst(ledgerPath)) {
    if (!parsed.ok) continue;
    const e = parsed.entry;
    const at = parseIsoTime(e.ts)?.getTime();
    if (at === undefined || at > now + FUTURE_SKEW_MS) continue;
    if (at < cutoff) break;
    const id = e.session;
    if (id === undefined || closed.has(id)) continue;
    if (e.event === "session.closed" && e.session_id === id && !heard.has(id)) {
      closed.add(id);
      continue;
    }
    let seen = heard.get(id);
    if (!seen) heard.set(id, (seen = { last: e.ts }));
    if (!seen.providerSession && typeof e.provider_session === "string" && e.provider_session !== "none")
      seen.providerSession = e.provider_session;
    const recordPath =
      e.event === "task.checkpoint" ? e.checkpoint_path : e.event === "task.handed_over" ? e.handover_path : undefined;
    if (!seen.record && typeof recordPath === "string")
      seen.record = { kind: e.event === "task.checkpoint" ? "checkpoint" : "handover", path: recordPath };
  }
  return heard;
}

async function touchedBy(root: string, record: Heard["record"]): Promise<string[] | undefined> {
  if (!record) return undefined;
  const kind = RECORD_KINDS[record.kind];
  const read = await readRecord(kind, join(root, record.path), record.path);
  return read.ok ? read.record.meta.changed_files : undefined;
}

/**
 * The open episodes heard from since `cutoff`, each read by its client session's key, so thousands of stranded
 * episodes cost nothing; the folder is listed only for one opened without a client session.
 */
async function liveIn(
  layer: Layer,
  root: string,
  window: { cutoff: number; now: number },
  here: boolean,
  task: Task | undefined,
  tracked: ReadonlySet<string>,
  except?: string,
  keep: (e: OpenEpisode) => boolean = () => true,
): Promise<Live[]> {
  if (openNames(layer).length <= (except ? 1 : 0)) return [];
  // A ledger git tracks is a stranger's: no sign of life.
  if (tracked.has(ledgerOf(layer).path)) return [];
  const heard = heardFrom(ledgerOf(layer).path, window.cutoff, window.now);
  heard.delete(except ?? "");
  const found = await openHeard(layer, heard, tracked, keep);
  const out: Live[] = [];
  for (const [id, e] of [...found].slice(0, LIVE_KEPT)) {
    const seen = heard.get(id)!;
    const touched = await touchedBy(root, seen.record);
    out.push({
      session_id: e.session_id,
      provider: e.provider,
      provider_session: e.provider_session,
      opened_at: e.opened_at,
      last_seen: seen.last,
      worktree: e.worktree,
      here,
      ...(task ? { task: { id: task.id, task: task.task, scope: task.scope } } : {}),
      ...(touched ? { touched } : {}),
    });
  }
  return out;
}

/** The open episodes among those heard from, newest first, at most LIVE_KEPT. */
async function openHeard(
  layer: Layer,
  heard: Map<string, Heard>,
  tracked: ReadonlySet<string>,
  keep: (e: OpenEpisode) => boolean,
): Promise<Map<string, OpenEpisode>> {
  const found = new Map<string, OpenEpisode>();
  let byHand = false;
  for (const [id, h] of heard) {
    if (found.size >= LIVE_KEPT) break;
    if (!h.providerSession) {
      byHand = true;
      continue;
    }
    const path = episodePath(layer, episodeKey(h.providerSession));
    if (tracked.has(path)) continue;
    const e = (await readEpisode(path)).episode;
    if (e?.session_id === id && keep(e)) found.set(id, e);
  }
  if (byHand && found.size < LIVE_KEPT)
    for (const r of await listOpen(layer))
      if (
        r.episode &&
        !tracked.has(episodePath(layer, r.key)) &&
        heard.has(r.episode.session_id) &&
        !found.has(r.episode.session_id) &&
        keep(r.episode)
      )
        found.set(r.episode.session_id, r.episode);
  return found;
}

/**
 * The live sessions beside `ws`'s own episode, newest first; empty when the policy declares no `session.live_within`.
 */
export async function liveSessions(
  ws: Workspace,
  policy: LoadedPolicy | undefined,
  options: { except?: string; task?: Task; tracked?: ReadonlySet<string> } = {},
): Promise<Live[]> {
  const windowMs = liveWindowMs(policy);
  if (windowMs === undefined) return [];
  const window = { cutoff: ws.at.getTime() - windowMs, now: ws.at.getTime() };
  const stopped = new Set(
    readStops(ws.layer)
      .filter((s) => !options.tracked?.has(s.path))
      .map((s) => s.session_id),
  );
  const found = await liveIn(
    ws.layer,
    ws.position.worktree,
    window,
    true,
    options.task,
    options.tracked ?? new Set(),
    options.except,
    // A session stopped at its usage limit is not at work: the briefing says it stopped (stoppedSessions).
    (e) => sameCheckout(e, ws.position) && !stopped.has(e.session_id),
  );
  const mine = options.task;
  if (mine && mine.scope.length > 0)
    for (const root of otherWorktrees(ws.position)) {
      if (root === ws.position.worktree) continue;
      let layer: Layer;
      try {
        layer = await loadGuardedLayer(root);
      } catch {
        continue;
      }
      const tracked = (await trackedUnder(root, join(layer.dir, layer.manifest.local.path))).files;
      const read = await activeTask(layer);
      const theirs = tracked.has(read.path) ? undefined : read.active;
      if (!theirs || !scopesOverlap(mine.scope, theirs.scope)) continue;
      found.push(...(await liveIn(layer, root, window, false, theirs, tracked)));
    }
  return found.sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0)).slice(0, LIVE_KEPT);
}

/** A session of this checkout stopped at its usage limit: which client, when, why, its checkpoint then, and whether it ended. */
export type Stopped = Stop & { ended: boolean };

const STOPPED_KEPT = 5;

/** The stops no later session carried on (session/store.ts readStops) but `except`'s, newest first. */
export async function stoppedSessions(
  ws: Workspace,
  except: string | undefined,
  tracked: ReadonlySet<string>,
): Promise<Stopped[]> {
  const out: Stopped[] = [];
  for (const s of readStops(ws.layer)) {
    if (s.session_id === except || s.carried_on || tracked.has(s.path)) continue;
    const open = (await readEpisode(episodePath(ws.layer, episodeKey(s.provider_session)))).episode;
    const { path: _path, ...stop } = s;
    out.push({ ...stop, ended: open?.session_id !== s.session_id });
  }
  return out.sort((a, b) => (a.stopped_at < b.stopped_at ? 1 : -1)).slice(0, STOPPED_KEPT);
}
