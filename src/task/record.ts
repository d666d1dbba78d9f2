/**
 * The task record, `<state>/current.yaml`, one per checkout and optional everywhere on the continuity path: one that
 * cannot be read is reported, and the rest goes on without it.
 */
import { redactOnRead, type Clean } from "../lib/redact.ts";
import { lstatSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { Failure, errnoCode } from "../lib/failure.ts";
import { ensureDir, exists, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile, unreadable } from "../lib/safe-read.ts";
import { parseYaml } from "../lib/runtime.ts";
import { emitMap } from "../lib/yaml-emit.ts";
import { log } from "../lib/log.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export const OUTCOMES = ["completed", "partial", "blocked", "no_match", "failed"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type TaskState = "active" | "handed_over" | Outcome;

export type Task = {
  id: string;
  task: Clean;
  profile: string;
  owner: string;
  scope: string[];
  started_at: string;
  checkpoint_at: string;
  outcome: TaskState;
  repository_id: string;
  worktree: string;
  branch: string;
  head: string;
  working_tree: string;
};

const KEYS: ReadonlyArray<keyof Task> = [
  "id",
  "task",
  "profile",
  "owner",
  "scope",
  "started_at",
  "checkpoint_at",
  "outcome",
  "repository_id",
  "worktree",
  "branch",
  "head",
  "working_tree",
];
const STATES: readonly string[] = ["active", "handed_over", ...OUTCOMES];

export function taskPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), "current.yaml");
}

export type TaskRead = { task?: Task; problem?: string; path: string };

export async function readTask(layer: Layer): Promise<TaskRead> {
  const path = taskPath(layer);
  let text: string;
  try {
    text = readLayerFile(path);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return { path };
    return { path, problem: `${path}: ${unreadable(err, path)}` };
  }
  let data: Record<string, unknown>;
  try {
    data = (await parseYaml(text)) as Record<string, unknown>;
  } catch (err) {
    return { path, problem: `${path}: not valid YAML (${(err as Error).message})` };
  }
  if (!data || typeof data !== "object") return { path, problem: `${path}: not a map` };
  for (const key of KEYS) {
    const value = data[key];
    const ok =
      key === "scope" ? Array.isArray(value) && value.every((v) => typeof v === "string") : typeof value === "string";
    if (!ok) return { path, problem: `${path}: ${key} is missing or has the wrong type` };
  }
  const unknown = Object.keys(data).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) return { path, problem: `${path}: undeclared key(s) ${unknown.join(", ")}` };
  if (!STATES.includes(String(data.outcome)))
    return { path, problem: `${path}: outcome ${JSON.stringify(data.outcome)} is not one of ${STATES.join(", ")}` };
  // A task written before every write was redacted is redacted as it is read.
  return { path, task: { ...(data as unknown as Task), task: redactOnRead(String(data.task)) } };
}

let warned = false;

export async function activeTask(layer: Layer): Promise<TaskRead & { active?: Task }> {
  const read = await readTask(layer);
  if (read.problem && !warned) {
    warned = true;
    log.warn(`${read.problem}; carrying on without a task`);
  }
  return { ...read, active: read.task?.outcome === "active" ? read.task : undefined };
}

/** The handover that closed the last task, while none has started since: its words carry past the task. */
export function closedBy(read: TaskRead): { task_id: string; created_at: string } | undefined {
  const t = read.task;
  return t && t.outcome === "handed_over" ? { task_id: t.id, created_at: t.checkpoint_at } : undefined;
}

/**
 * Whose records may still tell the next step: the active task's, else the task a closing handover or `finish` ended
 * while none has started since. Undefined when the record cannot be read.
 */
export function tasksNow(read: TaskRead): TasksNow | undefined {
  if (read.problem) return undefined;
  const t = read.task;
  if (!t) return {};
  if (t.outcome === "active") return { active: t.id };
  if (t.outcome === "handed_over") return { carried: t.id };
  return { ended: { task_id: t.id, outcome: t.outcome } };
}

export type TasksNow = {
  active?: string;
  carried?: string;
  ended?: { task_id: string; outcome: string; note?: string };
};

export function completedDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "completed");
}

/** The newest note task `id` was finished with (`<id>.md`, `<id>-2.md`, …), a regular file only. */
export function finishedNote(layer: Layer, id: string): string | undefined {
  const dir = completedDir(layer);
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  let best: { n: number; name: string } | undefined;
  for (const name of names) {
    const n = name === `${id}.md` ? 1 : name.startsWith(`${id}-`) ? Number(name.slice(id.length + 1, -3)) : NaN;
    if (!name.endsWith(".md") || !Number.isInteger(n) || n < 1) continue;
    if (!lstatSync(join(dir, name), { throwIfNoEntry: false })?.isFile()) continue;
    if (!best || n > best.n) best = { n, name };
  }
  return best && join(dir, best.name);
}

export function writeTask(layer: Layer, task: Task): void {
  ensureDir(sectionPath(layer, "state"), 0o700);
  writeFileAtomic(
    taskPath(layer),
    `# The task this checkout works on. Written by majordomus start/finish/handover; do not edit.\n${emitMap(KEYS.map((k) => [k, task[k]] as const))}`,
    0o600,
  );
}

export function archiveTask(layer: Layer, task: Task): string {
  const dir = join(sectionPath(layer, "state"), "archive");
  ensureDir(dir, 0o700);
  let target = join(dir, `${task.id}.yaml`);
  for (let n = 2; exists(target); n++) target = join(dir, `${task.id}-${n}.yaml`);
  renameSync(taskPath(layer), target);
  return target;
}

export function requireReadable(read: TaskRead): void {
  if (read.problem)
    throw new Failure("contract", read.problem, "fix or move the file; `majordomus start` writes a new one");
}
