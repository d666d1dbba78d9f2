/**
 * Where a record kind is resolved from (this checkout, and for handovers the one that closed its last task), and what
 * its records are shown against (whose records may still tell the next step), from one read of the task record.
 */
import type { Workspace } from "../workspace/workspace.ts";
import type { RecordKind } from "../records/kinds.ts";
import type { Place } from "../records/resolve.ts";
import type { Showing } from "../records/view.ts";
import { relative } from "node:path";
import { closedBy, finishedNote, readTask, tasksNow, type TaskRead, type TasksNow } from "../task/record.ts";

export function placeWith(kind: RecordKind, position: Workspace["position"], read: TaskRead): Place {
  return kind.name === "handover" ? { ...position, closedBy: closedBy(read) } : position;
}

export async function placeFor(
  kind: RecordKind,
  ws: Pick<Workspace, "layer" | "position">,
): Promise<{ place: Place; showing: Showing }> {
  const read = await readTask(ws.layer);
  return { place: placeWith(kind, ws.position, read), showing: { tasks: tasksHere(ws, read) } };
}

/** Whose records may still tell the next step here (task/record.ts tasksNow), with the note a finished task was finished with. */
export function tasksHere(ws: Pick<Workspace, "layer" | "position">, read: TaskRead): TasksNow | undefined {
  const tasks = tasksNow(read);
  const note = tasks?.ended && finishedNote(ws.layer, tasks.ended.task_id);
  if (note) tasks!.ended!.note = relative(ws.position.worktree, note);
  return tasks;
}
