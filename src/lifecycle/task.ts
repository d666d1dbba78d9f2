/** `start` and `finish`: the task's two transitions that are not record writes. */
import { redactForWrite, type Clean } from "../lib/redact.ts";
import { sameCheckout } from "../repo/where.ts";
import { readFileSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import { Failure, errnoCode } from "../lib/failure.ts";
import { ensureDir, publishNew, randomHex } from "../lib/fsx.ts";
import { wall, stamp, isoStamp, compactStamp } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { type LoadedPolicy } from "../policy/index.ts";
import { readQuestions, describeMalformed } from "../questions/store.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { missingSections } from "../records/markdown.ts";
import { newer, type Loaded } from "../records/record.ts";
import { readAll, storeOf } from "../records/store.ts";
import { requiredSections } from "./records.ts";
import { snapshot } from "../repo/status.ts";
import { canMatchGlobs, isGlob, scopeParts } from "../lib/scope.ts";
import { archiveTask, completedDir, readTask, writeTask, type Outcome, type Task } from "../task/record.ts";
import { env } from "../lib/env.ts";

const PROFILE = /^[a-z0-9][a-z0-9._-]*$/;

/** Scope paths and globs (lib/scope.ts): repository-relative, normalised, never absolute, never above the root. */
export function normaliseScope(raw: string): string[] {
  const parts = scopeParts(raw);
  if (parts.length === 0)
    throw new Failure("usage", "--scope names no path", "e.g. --scope src,docs (or . for the whole repository)");
  return [
    ...new Set(
      parts.map((part) => {
        if (part.startsWith("/") || /^[A-Za-z]:[\\/]/.test(part))
          throw new Failure(
            "usage",
            `scope path ${JSON.stringify(part)} is absolute`,
            "give paths relative to the repository root",
          );
        const clean = normalize(part).replace(/\\/g, "/").replace(/\/+$/, "") || ".";
        if (clean === ".." || clean.startsWith("../"))
          throw new Failure(
            "usage",
            `scope path ${JSON.stringify(part)} leaves the repository`,
            "give paths inside the repository",
          );
        if (isGlob(clean) && !canMatchGlobs())
          throw new Failure(
            "usage",
            `scope ${JSON.stringify(part)} is a glob, and this runtime cannot match globs`,
            "give folders or files (e.g. --scope src), or run the majordomus binary",
          );
        return clean;
      }),
    ),
  ];
}

export type StartOptions = { task: string; scope: string; profile?: string; owner?: string };

/** The person's words and profile, or a usage failure saying what is wrong. */
async function checkedStart(options: StartOptions): Promise<{ text: Clean; profile: string }> {
  const text = await redactForWrite(options.task.trim(), "task");
  if (text === "")
    throw new Failure(
      "usage",
      "the task description is empty",
      'e.g. majordomus start "fix the login timeout" --scope src/auth',
    );
  const profile = options.profile ?? "implementation";
  if (!PROFILE.test(profile))
    throw new Failure(
      "usage",
      `profile ${JSON.stringify(profile)} is not a valid name`,
      "use lowercase letters, digits, dots, dashes and underscores",
    );
  return { text, profile };
}

export async function startTask(ws: Workspace, options: StartOptions): Promise<{ task: Task; archived?: string }> {
  const { text, profile } = await checkedStart(options);
  const scope = normaliseScope(options.scope);
  const read = await readTask(ws.layer);
  if (read.task?.outcome === "active") {
    throw new Failure(
      "refused",
      `task ${read.task.id} is already active in this checkout: ${read.task.task}`,
      "hand it over with `majordomus handover --close` (or `--derive --close`), or finish it " +
        "with `majordomus finish --outcome <outcome>`",
    );
  }
  let archived: string | undefined;
  if (read.task || read.problem) {
    if (read.problem) log.warn(`${read.problem}; moving it into the archive`);
    archived = archiveTask(ws.layer, read.task ?? ({ id: `unreadable-${compactStamp(wall())}` } as Task));
  }
  const at = wall();
  const snap = await snapshot(ws.position, ws.own);
  const p = ws.position;
  const task: Task = {
    id: `t-${compactStamp(at).replace(/[TZ]/g, "")}-${randomHex(2)}`,
    task: text,
    profile,
    owner: options.owner?.trim() || env("USER") || env("USERNAME") || "unknown",
    scope,
    started_at: isoStamp(at),
    checkpoint_at: isoStamp(at),
    outcome: "active",
    repository_id: p.repositoryId,
    worktree: p.worktree,
    branch: p.branch,
    head: p.head,
    working_tree: snap.workingTree,
  };
  writeTask(ws.layer, task);
  await appendEvent(ws, "task.started", { task_id: task.id, profile, owner: task.owner, scope });
  return { task, archived };
}

const NOTE_RULES: Record<Outcome, (policy: LoadedPolicy) => string[]> = {
  completed: (policy) => requiredSections(policy),
  partial: () => ["Next Action"],
  blocked: () => ["Next Action"],
  no_match: () => ["Reason"],
  failed: () => ["Reason"],
};

async function newestHandoverFor(ws: Workspace, taskId: string): Promise<Loaded | undefined> {
  let best: Loaded | undefined;
  for (const row of await readAll(storeOf(ws.layer, RECORD_KINDS.handover))) {
    if (
      row.parsed.ok &&
      row.parsed.record.meta.task_id === taskId &&
      (!best || newer(row.parsed.record.meta, best.meta))
    )
      best = row.parsed.record;
  }
  return best;
}

export type FinishOptions = { outcome: Outcome; note?: string };

/** The note a task is finished with: the file `--note` names, else the newest handover naming the task. */
async function finishingNote(
  ws: Workspace,
  task: Task,
  path: string | undefined,
): Promise<{ note: string; source: string }> {
  if (path !== undefined) {
    try {
      return { note: readFileSync(path, "utf8"), source: path };
    } catch (err) {
      // --note names a file; text given in its place is a usage mistake, and is not echoed back.
      throw new Failure(
        "usage",
        errnoCode(err) === "ENOENT"
          ? "--note takes the path of a Markdown file, and no such file exists"
          : `cannot read the note file: ${(err as { code?: string }).code ?? "unreadable"}`,
        "write the note to a file and give its path (e.g. `--note notes.md`), or leave --note out " +
          "to use the newest handover naming the task",
      );
    }
  }
  const handover = await newestHandoverFor(ws, task.id);
  if (!handover)
    throw new Failure(
      "missing",
      `no --note was given and no handover names task ${task.id}`,
      "write one with `majordomus handover`, or pass --note FILE",
    );
  return { note: handover.body, source: relative(ws.position.worktree, handover.path) };
}

/** Open (or unreadable) questions refuse `--outcome completed`. */
function refuseOpenQuestions(ws: Workspace): void {
  const questions = readQuestions(ws.layer);
  const blockers = [
    ...questions.open.map((q) => `${questions.path}:${q.line}: ${q.text}`),
    ...describeMalformed(questions),
  ];
  if (blockers.length === 0) return;
  throw new Failure(
    "contract",
    `${questions.open.length} open question(s) and ${questions.malformed.length} malformed ` +
      `line(s) refuse --outcome completed`,
    "resolve them with `majordomus question resolve`, or finish with another outcome",
    blockers,
  );
}

export async function finishTask(ws: Workspace, options: FinishOptions): Promise<{ task: Task; notePath: string }> {
  const read = await readTask(ws.layer);
  if (read.problem)
    throw new Failure("contract", read.problem, "fix or move the file; `majordomus start` writes a new one");
  const task = read.task;
  if (!task || task.outcome !== "active")
    throw new Failure(
      "missing",
      task ? `task ${task.id} is not active (it is ${task.outcome})` : "there is no active task to finish",
      "start one with `majordomus start`",
    );
  if (!sameCheckout(task, ws.position))
    throw new Failure(
      "refused",
      `task ${task.id} belongs to the worktree ${task.worktree}`,
      "finish it from that worktree",
    );
  const policy = await ws.policy();

  const given = await finishingNote(ws, task, options.note);
  const note = await redactForWrite(given.note, "finishing note");
  const source = given.source;
  const missing = missingSections(note, NOTE_RULES[options.outcome](policy));
  if (missing.length > 0) {
    throw new Failure(
      "contract",
      `finishing as ${options.outcome} needs a note ` +
        `with ${missing.map((m) => `# ${m}`).join(", ")}; ${source} lacks it`,
      "add the section(s) with real content (placeholders do not count)",
    );
  }
  if (options.outcome === "completed") refuseOpenQuestions(ws);

  const dir = completedDir(ws.layer);
  ensureDir(dir, 0o700);
  let notePath = join(dir, `${task.id}.md`);
  for (let n = 2; !publishNew(notePath, note, 0o600); n++) notePath = join(dir, `${task.id}-${n}.md`);
  const done: Task = { ...task, outcome: options.outcome, checkpoint_at: stamp() };
  writeTask(ws.layer, done);
  const rel = relative(ws.position.worktree, notePath);
  await appendEvent(ws, "task.finished", { task_id: task.id, outcome: options.outcome, note_path: rel });
  return { task: done, notePath: rel };
}
