/** Where a record kind is resolved from: this checkout, and for handovers the one that closed its last task. */
import type { Workspace } from "../workspace/workspace.ts";
import type { RecordKind } from "../records/kinds.ts";
import type { Place } from "../records/resolve.ts";
import { closedBy, readTask } from "../task/record.ts";

export async function placeFor(kind: RecordKind, here: Pick<Workspace, "layer" | "position">): Promise<Place> {
  if (kind.name !== "handover") return here.position;
  return { ...here.position, closedBy: closedBy(await readTask(here.layer)) };
}
