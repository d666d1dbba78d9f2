/** What `checkpoint` and `handover` print of their records: the resolved one, the listing, one shown whole. Pure views. */
import { field } from "../lib/quote.ts";
import type { Row } from "../records/list.ts";
import type { Meta } from "../records/record.ts";
import { headerLines, withoutNextAction, type View } from "../records/view.ts";

const capital = (noun: string) => `${noun[0]!.toUpperCase()}${noun.slice(1)}`;

export const noRecordLine = (noun: string, branch: string) =>
  `No ${noun} for this worktree and branch (${branch}); records from other branches are never offered.`;

/** The resolved record: its labels, what was derived since (if anything), and its body (without a withheld Next Action). */
/** `acted`: what later sessions did of its Next Action, said before the body. */
export function resolvedLines(
  noun: string,
  v: View,
  since: View | undefined,
  acted?: { said: string[]; whole: boolean },
): string[] {
  const lines = headerLines(noun, v);
  if (v.working_tree_then !== "unknown") lines.push(`Working tree: ${v.working_tree_then} when written`);
  if (since)
    lines.push(
      `Since then: derived ${since.path} (${since.age !== undefined ? `${since.age} ago` : "age unknown"}${since.session !== "none" ? `, episode ${since.session}` : ""}); ` +
        `it adds git's and the ledger's facts and does not replace this ${noun}`,
    );
  if (acted) lines.push(...acted.said);
  if (acted?.whole)
    lines.push("Every step of its Next Action was acted on: below it is what was asked, not the thing to do.");
  lines.push("---", (v.history ? withoutNextAction(v.body) : v.body).replace(/\s+$/, ""));
  if (v.next_action_withheld) lines.push("", v.next_action_withheld);
  return lines;
}

export const listingLine = (r: Row) =>
  [r.created_at, r.branch, r.task_id, r.how, r.divergence, r.freshness, r.path].join("  ");

export function shownLines(noun: string, path: string, m: Meta, body: string): string[] {
  return [
    `${capital(noun)}: ${path}`,
    `Created: ${m.created_at}, ${m.how}${m.session !== "none" ? `, in episode ${m.session}` : ""}, ` +
      `on ${field(m.branch)} at ${m.head.slice(0, 7)}`,
    `Task: ${m.task_id}`,
    "---",
    body.replace(/\s+$/, ""),
  ];
}
