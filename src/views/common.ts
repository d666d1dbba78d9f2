/** Small phrases every view words the same way. */
import type { Divergence } from "../records/labels.ts";
import type { View } from "../records/view.ts";

/** Labels that tell the reader to trust git over the record. */
export function warnsAgainst(label: Divergence): boolean {
  return label === "diverged" || label === "different_context" || label === "unknown";
}

/** majordomus's own closed records that are not committed yet: named as such, never as the worker's changes. */
export function ownRecordsLine(own: readonly string[]): string | undefined {
  if (own.length === 0) return undefined;
  return `${own.length} closed session record(s) not committed (majordomus's own, in ${own[0]!.slice(0, own[0]!.lastIndexOf("/") + 1)}; commit them with the work: \`git add .ai/repo/sessions\`).`;
}

/**
 * The command that prints a record whole, as every cut notice names it: a handover by its file
 * name (`handover --show <file>`); a checkpoint is only ever shown as the one resolved
 * (`checkpoint --show`); a handover shared through git is a tracked file, read as it is.
 */
export function showCommand(v: Pick<View, "path" | "shared">): string {
  if (v.shared) return `cat ${v.path}`;
  return v.path.includes("/checkpoints/")
    ? "majordomus checkpoint --show"
    : `majordomus handover --show ${v.path.slice(v.path.lastIndexOf("/") + 1)}`;
}

/** A list capped at `max` items, the last line saying how many more there were. */
export function capped(items: readonly string[], max: number, noun: string, bullet = "- "): string[] {
  const shown = items.slice(0, max).map((i) => `${bullet}${i}`);
  if (items.length > max) shown.push(`${bullet}... and ${items.length - max} more ${noun}`);
  return shown;
}
