/**
 * Writing a checkpoint or handover as gather (task, git status, once), plan (pure: body checks, identity, the task's
 * new clock, the ledger payload) and commit (redact, publish, move the clock, append). A task is never required.
 */
import { redactCounted, sayRedacted } from "../lib/redact.ts";
import { join, relative } from "node:path";
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
import { missingSections, repeatedSections } from "../records/markdown.ts";
import { bodyRefusal, type How, type Loaded, type Meta } from "../records/record.ts";
import { publish, recordName, storeOf, type Draft } from "../records/store.ts";
import { recordedPaths } from "../lib/changed-paths.ts";
import { claimsIn, claimText } from "../records/claims.ts";
import { marked } from "../records/ranges.ts";
import { writeLineMaps } from "../records/lines.ts";

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
        "shorten it (it is quoted whole into the next briefing), or write a handover instead; " +
          "nothing was cut or written",
      );
    }
    return;
  }
  const required = requiredSections(policy);
  // Which of two `# Next Action` holds the agent's words cannot be guessed: refused, never a silent choice.
  const twice = repeatedSections(body).filter((s) => required.includes(s));
  if (twice.length > 0)
    throw new Failure(
      "contract",
      `the handover gives the heading(s) ${twice.map((s) => `# ${s}`).join(", ")} more than once; nothing was written`,
      "give each section one heading, with all of its words under it (a heading quoted in the text: drop its `#`, or " +
        "put it in a code block)",
    );
  const missing = missingSections(body, required);
  if (missing.length > 0) {
    throw new Failure(
      "contract",
      `the handover lacks required section(s): ${missing.join(", ")}`,
      `give each a \`# <Section>\` heading with real content (placeholders do not count), or ` +
        `use \`majordomus handover --derive\``,
    );
  }
}

// `closing`: written by a close (its ledger line says so). `compressions`: how many compressions the client had made
// (hooks/compression.ts).
export type WriteOptions = { how: How; noTask?: boolean; close?: boolean; closing?: boolean; compressions?: number };
export type Written = { kind: RecordKind; record: Loaded; task?: Task; relativePath: string };

/**
 * What a record stands on, gathered once; `writtenAt` is the clock as gathered, which orders a checkout's records
 * across processes.
 */
export type Ground = {
  position: Position;
  episodeId?: string;
  task?: Task;
  snapshot: Snapshot;
  writtenAt: string;
};

export type PlannedRecord = {
  kind: RecordKind;
  /** A sequence number drawn ahead (records/store.ts reserveSeqs): the record takes exactly that name. */
  seq?: number;
  body: string;
  draft: Draft;
  task?: Task;
  payload: Record<string, unknown>;
  required: readonly string[];
};

const REDACTED_SHARE_MAX = 0.5;

/**
 * Why a body, as redaction left it, cannot be stored: a required section is gone or empty, or most of the text went.
 * Checked on the stored text, so a greedy rule is caught, never written with an "ok".
 */
export function redactionRefusal(
  kind: RecordKind,
  before: string,
  after: string,
  required: readonly string[],
): Failure | undefined {
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
      `redaction would remove most of ` +
        `the ${kind.noun} (${before.trim().length - kept} of ${before.trim().length} characters); nothing ` +
        `was stored`,
      "keep secrets out of the text and write it again; a key or a log of credentials is no handover",
    );
  return undefined;
}

export async function gatherGround(ws: Workspace): Promise<Ground> {
  const [read, snap] = await Promise.all([activeTask(ws.layer), snapshot(ws.position, ws.own)]);
  return { position: ws.position, episodeId: ws.episodeId, task: read.active, snapshot: snap, writtenAt: stamp() };
}

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

/** Move the clock on the task as it is now: one another process finished or replaced is never written back. */
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

export async function writePlanned(
  ws: Pick<Workspace, "layer" | "ledger" | "position" | "episodeId">,
  planned: PlannedRecord,
): Promise<Written> {
  const { kind } = planned;
  const redacted = await redactCounted(planned.body);
  const body = redacted.text;
  if (body !== planned.body) {
    const refused = redactionRefusal(kind, planned.body, body, planned.required);
    if (refused) throw refused;
  }
  sayRedacted(kind.noun, redacted);
  const other = kind.name === "handover" ? RECORD_KINDS.checkpoint : RECORD_KINDS.handover;
  // Claims are read from the text as kept, so none holds what redaction removed.
  const cited = marked(claimsIn(body), ws.position.worktree);
  const claims = cited.claims.map(claimText);
  const draft = claims.length > 0 ? { ...planned.draft, claims } : planned.draft;
  const record = await publish(storeOf(ws.layer, kind), draft, body, [storeOf(ws.layer, other).dir], planned.seq);
  // The cited files' lines, cached so the next reading counts changes without git.
  writeLineMaps(ws.layer, record.file, cited.lines);
  const task = planned.task && (await moveClock(ws.layer, planned.task));
  const relativePath = relative(ws.position.worktree, record.path);
  const { task_id, ...rest } = planned.payload;
  await appendEvent(ws, kind.event, { task_id, [kind.pathKey]: relativePath, ...rest });
  return { kind, record, task, relativePath };
}

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

/** The record a plan with a drawn sequence number will write, as its readers will see it (before its claims are read). */
export async function toBeWritten(
  planned: PlannedRecord & { seq: number },
  dir: string,
  worktree: string,
): Promise<Written> {
  const body = (await redactCounted(planned.body)).text;
  const meta = { schema: planned.kind.schema, seq: planned.seq, ...planned.draft } as Meta;
  const file = recordName(meta, planned.seq);
  const path = join(dir, file);
  const task = planned.task;
  return { kind: planned.kind, record: { path, file, meta, body }, task, relativePath: relative(worktree, path) };
}
