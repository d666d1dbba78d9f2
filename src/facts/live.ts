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
import { loadLayer, type Layer } from "../layer/manifest.ts";
import { ledgerOf, newestFirst } from "../ledger/store.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { readRecord } from "../records/record.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { otherWorktrees } from "../repo/worktrees.ts";
import { sameCheckout } from "../repo/where.ts";
import { listOpen, type OpenEpisode } from "../session/store.ts";
import { activeTask, type Task } from "../task/record.ts";
import type { Workspace } from "../workspace/workspace.ts";

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

type Heard = { last: string; record?: { kind: "checkpoint" | "handover"; path: string } };

/**
 * Each wanted episode's newest line in a ledger, reading back only until `cutoff`: the lines are
 * in time order, so a line older than it ends the read.
 */
function heardFrom(ledgerPath: string, wanted: ReadonlySet<string>, cutoff: number): Map<string, Heard> {
  const heard = new Map<string, Heard>();
  if (wanted.size === 0) return heard;
  for (const parsed of newestFirst(ledgerPath)) {
    if (!parsed.ok) continue;
    const e = parsed.entry;
    const at = parseIsoTime(e.ts)?.getTime();
    if (at === undefined) continue;
    if (at < cutoff) break;
    const id = e.session;
    if (id === undefined || !wanted.has(id)) continue;
    const seen = heard.get(id) ?? { last: e.ts };
    if (!heard.has(id)) heard.set(id, seen);
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

async function liveIn(
  layer: Layer,
  root: string,
  episodes: OpenEpisode[],
  cutoff: number,
  here: boolean,
  task: Task | undefined,
): Promise<Live[]> {
  const heard = heardFrom(ledgerOf(layer).path, new Set(episodes.map((e) => e.session_id)), cutoff);
  const out: Live[] = [];
  for (const e of episodes) {
    const seen = heard.get(e.session_id);
    if (!seen) continue;
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
  options: { except?: string; task?: Task } = {},
): Promise<Live[]> {
  const windowMs = liveWindowMs(policy);
  if (windowMs === undefined) return [];
  const cutoff = ws.at.getTime() - windowMs;
  const others = (await listOpen(ws.layer)).flatMap((r) =>
    r.episode && r.episode.session_id !== options.except && sameCheckout(r.episode, ws.position) ? [r.episode] : [],
  );
  const found = await liveIn(ws.layer, ws.position.worktree, others, cutoff, true, options.task);
  const mine = options.task;
  if (mine && mine.scope.length > 0)
    for (const root of otherWorktrees(ws.position)) {
      if (root === ws.position.worktree) continue;
      let layer: Layer;
      try {
        layer = await loadLayer(root);
      } catch {
        continue;
      }
      const theirs = (await activeTask(layer)).active;
      if (!theirs || !scopesOverlap(mine.scope, theirs.scope)) continue;
      const open = (await listOpen(layer)).flatMap((r) => (r.episode ? [r.episode] : []));
      found.push(...(await liveIn(layer, root, open, cutoff, false, theirs)));
    }
  return found.sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0));
}
