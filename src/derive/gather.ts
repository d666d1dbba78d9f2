/**
 * Everything a derived record is composed from, gathered once: git now, the task record, the
 * open questions, the ledger since the task started, and the newest checkpoint. No model, no
 * network: only what is already written down.
 */
import { now } from "../lib/clock.ts";
import type { Here } from "../layer/here.ts";
import { newestFirst } from "../ledger/store.ts";
import type { Entry } from "../ledger/line.ts";
import { loadPolicy, type LoadedPolicy } from "../policy/index.ts";
import { readQuestions, type Questions } from "../questions/store.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { resolveLatest, type Resolved } from "../records/resolve.ts";
import { divergence, type Divergence } from "../records/labels.ts";
import { commitsSince, filesSince, snapshot, type Snapshot } from "../repo/status.ts";
import { activeTask, type Task } from "../task/record.ts";

export type Gathered = {
  here: Here;
  at: Date;
  policy: LoadedPolicy;
  task?: Task;
  taskProblem?: string;
  /** Where the work being described started: the task's start commit, when there is a task. */
  start?: string;
  startLabel?: Divergence;
  snapshot: Snapshot;
  files: string[];
  commits: string[];
  questions: Questions;
  /** Ledger entries written since the task started (newest first); empty without a task. */
  entries: Entry[];
  checkpoint?: Resolved;
};

/** Ledger lines back to the task's own `task.started` line: bounded by the task, not by history. */
function entriesOfTask(here: Here, task: Task | undefined): Entry[] {
  if (!task) return [];
  const out: Entry[] = [];
  for (const parsed of newestFirst(here.ledger.path)) {
    if (!parsed.ok) continue;
    out.push(parsed.entry);
    if (parsed.entry.event === "task.started" && parsed.entry.task_id === task.id) break;
  }
  return out;
}

export async function gather(here: Here, options: { withCheckpoint: boolean }): Promise<Gathered> {
  const policy = await loadPolicy(here.layer);
  const read = await activeTask(here.layer);
  const task = read.active;
  const snap = await snapshot(here.position);
  const start = task?.head;
  const [files, commits, startLabel] = await Promise.all([
    filesSince(here.position, start, snap),
    start ? commitsSince(here.position, start) : Promise.resolve([]),
    task ? divergence({ head: task.head, branch: task.branch }, here.position) : Promise.resolve(undefined),
  ]);
  const checkpoint = options.withCheckpoint ? (await resolveLatest(RECORD_KINDS.checkpoint, here)).record : undefined;
  return {
    here,
    at: now(),
    policy,
    task,
    taskProblem: read.problem,
    start,
    startLabel,
    snapshot: snap,
    files,
    commits,
    questions: readQuestions(here.layer),
    entries: entriesOfTask(here, task),
    checkpoint,
  };
}

/** A list capped at `max` items, the last line saying how many more there were. */
export function capped(items: readonly string[], max: number, noun: string, bullet = "- "): string[] {
  const shown = items.slice(0, max).map((i) => `${bullet}${i}`);
  if (items.length > max) shown.push(`${bullet}... and ${items.length - max} more ${noun}`);
  return shown;
}
