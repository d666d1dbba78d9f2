/** Gathering the facts a command's views need, once, in parallel where git is asked. */
import type { Workspace } from "../workspace/workspace.ts";
import { readDecisions } from "../decisions/store.ts";
import { newestFirst } from "../ledger/store.ts";
import type { Entry } from "../ledger/line.ts";
import { requireNumber, type LoadedPolicy } from "../policy/index.ts";
import { readQuestions } from "../questions/store.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { divergence } from "../records/labels.ts";
import { resolveLatest, type Place, type Resolved } from "../records/resolve.ts";
import { view } from "../records/view.ts";
import { commitsSince, filesSince, snapshotWithin } from "../repo/status.ts";
import { activeTask, closedBy } from "../task/record.ts";
import type { Facts, Need, RecordFact } from "./facts.ts";
import { gatherEpisode } from "./episode.ts";
import { placeWith } from "./place.ts";
import type { OpenEpisode } from "../session/store.ts";
import { relative } from "node:path";

/** Ledger lines back to the task's own `task.started` line: bounded by the task, not by history. */
function entriesOfTask(ws: Workspace, taskId: string | undefined): Entry[] {
  if (!taskId) return [];
  const out: Entry[] = [];
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (!parsed.ok) continue;
    out.push(parsed.entry);
    if (parsed.entry.event === "task.started" && parsed.entry.task_id === taskId) break;
  }
  return out;
}

function recentHistory(ws: Workspace, max: number): Entry[] {
  const out: Entry[] = [];
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (out.length >= max) break;
    if (parsed.ok) out.push(parsed.entry);
  }
  return out;
}

/** A resolved record with its labels; a failure to read is a fact too, never a thrown error. */
async function recordFact(
  kind: RecordKind,
  ws: Workspace,
  policy: LoadedPolicy,
  place: Place = ws.position,
): Promise<RecordFact> {
  try {
    const resolution = await resolveLatest(kind, ws.layer, place);
    return {
      view: resolution.record ? await view(resolution.record, ws.position, policy.policy, ws.at) : undefined,
      since: resolution.since ? await view(resolution.since, ws.position, policy.policy, ws.at) : undefined,
      skipped: resolution.skipped,
    };
  } catch (err) {
    return { skipped: 0, error: (err as Error).message };
  }
}

/**
 * The facts after this command wrote a record: the views see it as this checkout's newest, and
 * the episode's window lists it (its ledger line was appended after the window was read).
 */
export async function withWritten(
  facts: Facts,
  kind: "checkpoint" | "handover",
  record: Omit<Resolved, "tier" | "match">,
): Promise<Facts> {
  const resolved: Resolved = { ...record, tier: 0, match: "same_worktree_same_branch" };
  const rel = relative(facts.position.worktree, record.path);
  const w = facts.window;
  const window = w && {
    ...w,
    tasks:
      record.meta.task_id === "none" || w.tasks.includes(record.meta.task_id)
        ? w.tasks
        : [...w.tasks, record.meta.task_id],
    ...(kind === "checkpoint"
      ? {
          checkpoints: [...w.checkpoints, rel],
          quotes: { ...w.quotes, [rel]: record.body.split("\n").filter((l) => l.trim() !== "") },
        }
      : { handovers: [...w.handovers, rel] }),
  };
  // A derived handover written now does not replace an authored one the facts already resolved.
  if (kind === "handover" && record.meta.how === "derived" && facts.handover.view?.how === "authored")
    return { ...facts, window };
  return {
    ...facts,
    window,
    [kind]: { view: await view(resolved, facts.position, facts.policy.policy, facts.at), skipped: 0 },
  };
}

const NONE: RecordFact = { skipped: 0 };

/**
 * `gitDeadlineMs`: how long the facts may wait for `git status` (the start hook's briefing, which
 * the client waits for); past it the working tree is `unknown` with the reason, and git is stopped.
 */
export type GatherOptions = { episode?: Facts["episode"]; window?: OpenEpisode; gitDeadlineMs?: number };

export async function gatherFacts(ws: Workspace, needs: readonly Need[], options: GatherOptions = {}): Promise<Facts> {
  const episode = options.episode;
  const want = new Set(needs);
  const policy = await ws.policy();
  const p = ws.position;
  // The records are placed against git (a process when a commit differs) while git status runs.
  const taskRead = activeTask(ws.layer);
  // The handover that closed the last task carries its words past it (records/resolve.ts).
  const handover = want.has("handover")
    ? taskRead.then((read) => recordFact(RECORD_KINDS.handover, ws, policy, placeWith(RECORD_KINDS.handover, p, read)))
    : Promise.resolve(NONE);
  const checkpoint = want.has("checkpoint") ? recordFact(RECORD_KINDS.checkpoint, ws, policy) : Promise.resolve(NONE);
  const bounded = snapshotWithin(p, ws.own, options.gitDeadlineMs);
  const [snap, read] = await Promise.all([bounded, taskRead]);
  const task = read.active;
  const sinceTask =
    task && want.has("since_task")
      ? await Promise.all([divergence({ head: task.head, branch: task.branch }, p), commitsSince(p, task.head)]).then(
          ([label, commits]) => ({ start: task.head, label, commits }),
        )
      : undefined;
  const files = task && want.has("since_task") ? await filesSince(p, task.head, snap, ws.own) : snap.changed;
  const window = want.has("window") && options.window ? await gatherEpisode(ws, options.window) : undefined;
  return {
    at: ws.at,
    position: p,
    policy,
    episode,
    snapshot: snap,
    task,
    taskProblem: read.problem,
    closedBy: closedBy(read),
    sinceTask,
    files,
    questions: readQuestions(ws.layer),
    decisions: want.has("decisions") ? readDecisions(ws.layer) : [],
    entries: want.has("entries") ? entriesOfTask(ws, task?.id) : [],
    history: want.has("history") ? recentHistory(ws, requireNumber(policy, "context.max_list_items")) : [],
    handover: await handover,
    checkpoint: await checkpoint,
    window,
  };
}
