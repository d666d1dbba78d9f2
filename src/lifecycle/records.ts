/**
 * Writing a checkpoint or a handover: check the body, compute the identity, publish, move the
 * task's clock, and append the ledger line. A task is never required.
 */
import { redactForWrite } from "../lib/redact.ts";
import { relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { stamp } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { requireNumber, type LoadedPolicy } from "../policy/index.ts";
import { snapshot } from "../repo/status.ts";
import { activeTask, writeTask, type Task } from "../task/record.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { missingSections } from "../records/markdown.ts";
import { bodyRefusal, type How, type Loaded } from "../records/record.ts";
import { publish, storeOf } from "../records/store.ts";
import { recordedPaths } from "../lib/changed-paths.ts";

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
/** `compressions`: a checkpoint for a compression the client made, and how many it had made by then (see capture/compression.ts). */
export type WriteOptions = { how: How; noTask?: boolean; close?: boolean; closing?: boolean; compressions?: number };
export type Written = { record: Loaded; task?: Task; relativePath: string };

export async function writeRecord(
  ws: Workspace,
  kind: RecordKind,
  body: string,
  policy: LoadedPolicy,
  options: WriteOptions,
): Promise<Written> {
  checkBody(kind, body, policy);
  // Nothing an agent writes is kept with a secret in it: not here, not in the closed record after it.
  body = await redactForWrite(body, kind.noun);
  const read = await activeTask(ws.layer);
  const task = options.noTask ? undefined : read.active;
  if (options.close && !task)
    throw new Failure(
      "missing",
      "there is no active task to close",
      "drop --close, or start a task first with `majordomus start`",
    );
  const snap = await snapshot(ws.position, ws.own);
  const p = ws.position;
  const other = kind.name === "handover" ? RECORD_KINDS.checkpoint : RECORD_KINDS.handover;
  const record = await publish(
    storeOf(ws.layer, kind),
    {
      created_at: stamp(),
      how: options.how,
      task_id: task?.id ?? "none",
      session: ws.session ?? "none",
      repository_id: p.repositoryId,
      worktree: p.worktree,
      branch: p.branch,
      head: p.head,
      working_tree: snap.workingTree,
      changed_files: recordedPaths(snap.changed),
    },
    body,
    [storeOf(ws.layer, other).dir],
  );
  let updated: Task | undefined;
  if (task) {
    updated = { ...task, checkpoint_at: record.meta.created_at, outcome: options.close ? "handed_over" : task.outcome };
    writeTask(ws.layer, updated);
  }
  const relativePath = relative(p.worktree, record.path);
  const payload: Record<string, unknown> = {
    task_id: record.meta.task_id,
    [kind.pathKey]: relativePath,
    how: options.how,
  };
  if (options.closing) payload.closing = true;
  if (options.compressions !== undefined) payload.compressions = options.compressions;
  if (kind.name === "handover") payload.closed = options.close === true;
  await appendEvent(ws, kind.event, payload);
  return { record, task: updated, relativePath };
}
