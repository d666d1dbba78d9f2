/**
 * Writing a checkpoint or a handover, as gather, plan, commit: the ground it stands on (the active
 * task, git status) is gathered once; the plan (pure) checks the body and computes the record's
 * identity, the task's new clock and the ledger line's payload; the commit redacts, publishes,
 * moves the task's clock and appends the line, in that order. A task is never required.
 */
import { redactCounted, sayRedacted } from "../lib/redact.ts";
import { relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { requireNumber, type LoadedPolicy } from "../policy/index.ts";
import { snapshot } from "../repo/status.ts";
import { activeTask, writeTask, type Task } from "../task/record.ts";
import type { Snapshot } from "../repo/status.ts";
import type { Position } from "../repo/where.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { missingSections } from "../records/markdown.ts";
import { bodyRefusal, type How, type Loaded } from "../records/record.ts";
import { publish, storeOf, type Draft } from "../records/store.ts";
import { recordedPaths } from "../lib/changed-paths.ts";
import { claimsIn, claimText } from "../records/claims.ts";
import { marked } from "../records/ranges.ts";
import { writeLineMaps } from "../records/lines.ts";

/** The required handover sections, from the policy only. */
export function requiredSections(policy: LoadedPolicy): string[] {
  const sections = policy.policy.handover?.required_sections;
  if (!sections)
    throw new Failure(
      "missing",
      `${policy.path} declares no handover.required_sections`,
      "add handover.required_sections (e.g. [Objective, Current State, Next Action]) to the policy",
    );
  return sections;
}

/** Every rule an authored (or derived) body must pass; the same for both. */
export function checkBody(kind: RecordKind, body: string, policy: LoadedPolicy): void {
  if (body.trim() === "") {
    throw new Failure(
      "contract",
      `the ${kind.noun} body is empty`,
      `pipe a body into \`majordomus ${kind.name}\`, or use \`majordomus ${kind.name} --derive\``,
    );
  }
  const refusal = bodyRefusal(kind, body);
  if (refusal) throw refusal;
  if (kind.name === "checkpoint") {
    const max = requireNumber(policy, "checkpoint.max_body_lines");
    const lines = body.replace(/\n$/, "").split("\n").length;
    if (lines > max) {
      throw new Failure(
        "contract",
        `the checkpoint body has ${lines} lines; checkpoint.max_body_lines allows ${max}`,
        "shorten it (it is quoted whole into the next briefing), or write a handover instead; nothing was cut or written",
      );
    }
    return;
  }
  const missing = missingSections(body, requiredSections(policy));
  if (missing.length > 0) {
    throw new Failure(
      "contract",
      `the handover lacks required section(s): ${missing.join(", ")}`,
      `give each a \`# <Section>\` heading with real content (placeholders do not count), or use \`majordomus handover --derive\``,
    );
  }
}

/** `closing`: written by an episode's close (its ledger line says so, so a completer never writes it twice). */
/** `compressions`: a checkpoint for a compression the client made, and how many it had made by then (see hooks/compression.ts). */
export type WriteOptions = { how: How; noTask?: boolean; close?: boolean; closing?: boolean; compressions?: number };
export type Written = { kind: RecordKind; record: Loaded; task?: Task; relativePath: string };

/**
 * What a record stands on, gathered once by the command: where, in which episode, the task, git
 * status, and when it is written (the clock as the gathering read it, not the command's pinned
 * instant: records of one checkout are ordered by it across processes).
 */
export type Ground = {
  position: Position;
  episodeId?: string;
  task?: Task;
  snapshot: Snapshot;
  writtenAt: string;
};

/** A record ready to be written: everything the commit needs, nothing it must look up. */
export type PlannedRecord = {
  kind: RecordKind;
  body: string;
  draft: Draft;
  /** The task with its clock moved, when the record attaches to one. */
  task?: Task;
  /** The ledger line's payload (its event is the kind's; the record's path is added once it is published). */
  payload: Record<string, unknown>;
  /** The sections the body must still hold once it is redacted (a handover's required sections). */
  required: readonly string[];
};

/** Redaction may take at most this share of a text: past it, what is left is no account of the work. */
const REDACTED_SHARE_MAX = 0.5;

/**
 * Why a body, as redaction left it, cannot be stored: a required section it had is gone or empty
 * now, or most of the text went. The checks run on the text that would be stored, so a rule that
 * took more than it matched is caught here, never written with an "ok".
 */
export function redactionRefusal(
  kind: RecordKind,
  before: string,
  after: string,
  required: readonly string[],
): Failure | undefined {
  // A section left holding only `[redacted:…]` marks says nothing any more: it is lost too.
  const unmarked = after.replace(/\[redacted:[a-z0-9-]+\]/g, "");
  const lost = missingSections(unmarked, required).filter((s) => !missingSections(before, [s]).length);
  if (lost.length > 0)
    return new Failure(
      "contract",
      `redacting the ${kind.noun} would remove its required section(s) ${lost.join(", ")}; nothing was stored`,
      "keep secrets (keys, tokens, passwords) out of the text, or name them without their value, and write it again",
    );
  const kept = unmarked.trim().length;
  if (before.trim().length >= 200 && kept < before.trim().length * (1 - REDACTED_SHARE_MAX))
    return new Failure(
      "contract",
      `redaction would remove most of the ${kind.noun} (${before.trim().length - kept} of ${before.trim().length} characters); nothing was stored`,
      "keep secrets out of the text and write it again; a key or a log of credentials is no handover",
    );
  return undefined;
}

export async function gatherGround(ws: Workspace): Promise<Ground> {
  const [read, snap] = await Promise.all([activeTask(ws.layer), snapshot(ws.position, ws.own)]);
  return { position: ws.position, episodeId: ws.episodeId, task: read.active, snapshot: snap, writtenAt: stamp() };
}

/** The record to write (pure): refuses a body the policy rules out, and a `--close` with no task. */
export function planRecord(
  kind: RecordKind,
  body: string,
  ground: Ground,
  policy: LoadedPolicy,
  options: WriteOptions,
): PlannedRecord {
  checkBody(kind, body, policy);
  const task = options.noTask ? undefined : ground.task;
  if (options.close && !task)
    throw new Failure(
      "missing",
      "there is no active task to close",
      "drop --close, or start a task first with `majordomus start`",
    );
  const p = ground.position;
  const createdAt = ground.writtenAt;
  const payload: Record<string, unknown> = { task_id: task?.id ?? "none", how: options.how };
  if (options.closing) payload.closing = true;
  if (options.compressions !== undefined) payload.compressions = options.compressions;
  if (kind.name === "handover") payload.closed = options.close === true;
  return {
    kind,
    body,
    draft: {
      created_at: createdAt,
      how: options.how,
      task_id: task?.id ?? "none",
      session: ground.episodeId ?? "none",
      repository_id: p.repositoryId,
      worktree: p.worktree,
      branch: p.branch,
      head: p.head,
      working_tree: ground.snapshot.workingTree,
      changed_files: recordedPaths(ground.snapshot.changed),
    },
    task: task && {
      ...task,
      checkpoint_at: createdAt,
      outcome: options.close ? "handed_over" : task.outcome,
    },
    payload,
    required: kind.name === "handover" ? requiredSections(policy) : [],
  };
}

/**
 * Move the task's clock to the plan's, on the task record as it is now: a task another process
 * finished (or replaced) since it was gathered is never written back, and a field another writer
 * changed meanwhile is kept.
 */
async function moveClock(layer: Workspace["layer"], planned: Task): Promise<Task | undefined> {
  const now = (await activeTask(layer)).active;
  if (now?.id !== planned.id) {
    log.warn(`task ${planned.id} is no longer the active task; its clock was not moved`);
    return undefined;
  }
  const moved = { ...now, checkpoint_at: planned.checkpoint_at, outcome: planned.outcome };
  writeTask(layer, moved);
  return moved;
}

/** Write what the plan carries: redacted, its claims read, published, the task's clock moved, the ledger line appended. */
export async function writePlanned(
  ws: Pick<Workspace, "layer" | "ledger" | "position" | "episodeId">,
  planned: PlannedRecord,
): Promise<Written> {
  const { kind } = planned;
  // Nothing an agent writes is kept with a secret in it: not here, not in the closed record after it.
  const redacted = await redactCounted(planned.body);
  const body = redacted.text;
  // The body's checks again, on the text that is stored: redaction must not have emptied what they found.
  if (body !== planned.body) {
    const refused = redactionRefusal(kind, planned.body, body, planned.required);
    if (refused) throw refused;
  }
  sayRedacted(kind.noun, redacted);
  const other = kind.name === "handover" ? RECORD_KINDS.checkpoint : RECORD_KINDS.handover;
  // What the body cites is read from the text as kept, so a claim never holds what redaction removed.
  const cited = marked(claimsIn(body), ws.position.worktree);
  const claims = cited.claims.map(claimText);
  const draft = claims.length > 0 ? { ...planned.draft, claims } : planned.draft;
  const record = await publish(storeOf(ws.layer, kind), draft, body, [storeOf(ws.layer, other).dir]);
  // What each cited file's lines were, in the local cache: the next reading counts the lines changed since without git.
  writeLineMaps(ws.layer, record.file, cited.lines);
  const task = planned.task && (await moveClock(ws.layer, planned.task));
  const relativePath = relative(ws.position.worktree, record.path);
  // The line reads as it always has: the task, the record's path, then how and the rest.
  const { task_id, ...rest } = planned.payload;
  await appendEvent(ws, kind.event, { task_id, [kind.pathKey]: relativePath, ...rest });
  return { kind, record, task, relativePath };
}

/** Gather, plan and write one record (a command's own checkpoint or handover). */
export async function writeRecord(
  ws: Workspace,
  kind: RecordKind,
  body: string,
  policy: LoadedPolicy,
  options: WriteOptions,
  ground?: Ground,
): Promise<Written> {
  return writePlanned(ws, planRecord(kind, body, ground ?? (await gatherGround(ws)), policy, options));
}
