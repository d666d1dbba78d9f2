/**
 * Live sessions that share a checkout: other open episodes of this worktree whose client sent an
 * event within `session.live_within`, and those of another worktree of the repository whose task
 * scope overlaps this one's. Read from the local halves alone (the open episode records, each
 * worktree's ledger and task record): no daemon, nothing asked of the clients.
 *
 * An episode is live by its ledger: every hook event (a prompt, a compaction, a start) writes a
 * line in its episode's name, so the newest such line is when its client was last heard from.
 * What it has touched is what its newest record (checkpoint or handover) written while live names
 * as changed; git cannot say which session changed which file in one working tree.
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
import { episodePath, listOpen, openNames, readEpisode, type OpenEpisode } from "../session/store.ts";
import { episodeKey } from "../session/keys.ts";
import { activeTask, type Task } from "../task/record.ts";
import type { Workspace } from "../workspace/workspace.ts";

/**
 * The most live sessions one worktree reports, the newest heard from first: a checkout where
 * dozens of clients were heard from in the window (a benchmark, a script) costs its start hook
 * what five cost, and a session is told of five at most.
 */
export const LIVE_KEPT = 5;

export type Live = {
  session_id: string;
  provider: string;
  provider_session: string;
  opened_at: string;
  /** When its client was last heard from (its newest ledger line). */
  last_seen: string;
  worktree: string;
  /** It is in this worktree (else another worktree of the repository, whose task scope overlaps). */
  here: boolean;
  /** The active task of its worktree (one task record a worktree: the sessions in it share it). */
  task?: Pick<Task, "id" | "task" | "scope">;
  /** The paths its newest record written while live names as changed (undefined: it has written none). */
  touched?: string[];
};

/** How far back a live session may have been heard from, in ms; undefined when the policy declares no `session.live_within`. */
export function liveWindowMs(policy: LoadedPolicy | undefined): number | undefined {
  const text = policy?.policy.session?.live_within;
  return text === undefined ? undefined : parseDuration(text);
}

/** Two scopes overlap when a path of one is inside the other (`.` holds everything). */
export function scopesOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((p) => inScope(b, p)) || b.some((p) => inScope(a, p));
}

/**
 * A line stamped this far past the command's instant is no sign of life: every line of a checkout
 * is written by this machine's clock, so one from the future was forged or copied (a branch that
 * force-added a ledger), and believing it would announce a session as live for ever.
 */
const FUTURE_SKEW_MS = 60_000;

type Heard = { last: string; providerSession?: string; record?: { kind: "checkpoint" | "handover"; path: string } };

/**
 * Every episode heard from in a ledger since `cutoff`, with its newest line's time, its client
 * session, and its newest record: the lines are in time order, so the first line older than the
 * cutoff ends the read. One whose newest line is its close is not live, and is left out (the
 * recovery of stranded episodes closes them by the thousand, and none has a client session to be
 * looked up by).
 */
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
 * The open episodes of one worktree heard from since `cutoff`, other than `except`. Only when
 * another episode is open is the ledger read, and then only back to the cutoff; each episode heard
 * from is read by its client session's key, so a checkout with thousands of stranded episodes
 * reads the few that are live (the folder is listed whole only for one opened without a client
 * session, by hand or over MCP).
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
  // A ledger git tracks is a stranger's: nothing in it is a sign of life.
  if (tracked.has(ledgerOf(layer).path)) return [];
  const heard = heardFrom(ledgerOf(layer).path, window.cutoff, window.now);
  heard.delete(except ?? "");
  // Newest heard from first (the ledger is read from its end), up to LIVE_KEPT of them.
  const found = new Map<string, OpenEpisode>();
  let byHand = false;
  for (const [id, h] of heard) {
    if (found.size >= LIVE_KEPT) break;
    if (!h.providerSession) {
      byHand = true;
      continue;
    }
    // An episode heard from that is no longer open (it closed since) has no record under its key.
    const path = episodePath(layer, episodeKey(h.providerSession));
    if (tracked.has(path)) continue;
    const e = (await readEpisode(path)).episode;
    if (e?.session_id === id && keep(e)) found.set(id, e);
  }
  // One opened without a client session (by hand, over MCP) is found by listing the folder.
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

/**
 * The live sessions beside `ws`'s own episode (`except`), newest heard from first: this
 * worktree's, and, when this worktree has an active task, those of other worktrees whose own
 * task's scope overlaps it. Empty when the policy declares no `session.live_within`.
 */
export async function liveSessions(
  ws: Workspace,
  policy: LoadedPolicy | undefined,
  options: { except?: string; task?: Task; tracked?: ReadonlySet<string> } = {},
): Promise<Live[]> {
  const windowMs = liveWindowMs(policy);
  if (windowMs === undefined) return [];
  const window = { cutoff: ws.at.getTime() - windowMs, now: ws.at.getTime() };
  const found = await liveIn(
    ws.layer,
    ws.position.worktree,
    window,
    true,
    options.task,
    options.tracked ?? new Set(),
    options.except,
    (e) => sameCheckout(e, ws.position),
  );
  const mine = options.task;
  if (mine && mine.scope.length > 0)
    for (const root of otherWorktrees(ws.position)) {
      if (root === ws.position.worktree) continue;
      let layer: Layer;
      try {
        // Checked as that worktree's own commands check it: a link where a folder belongs is not read through.
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
