/** Where a record kind is resolved from: this checkout, and for handovers the one that closed its last task. */
import type { Workspace } from "../workspace/workspace.ts";
import type { RecordKind } from "../records/kinds.ts";
import type { Place } from "../records/resolve.ts";
import { closedBy, readTask, type TaskRead } from "../task/record.ts";

/** The place, given the task record as already read. */
export function placeWith(kind: RecordKind, position: Workspace["position"], read: TaskRead): Place {
  return kind.name === "handover" ? { ...position, closedBy: closedBy(read) } : position;
}

export async function placeFor(kind: RecordKind, ws: Pick<Workspace, "layer" | "position">): Promise<Place> {
  return kind.name === "handover" ? placeWith(kind, ws.position, await readTask(ws.layer)) : ws.position;
}
