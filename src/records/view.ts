/** A resolved record as every surface shows it: both labels side by side, its age, its Next Action. */
import { redactOnRead } from "../lib/redact.ts";
import { capitalized } from "../lib/printable.ts";
import { field } from "../lib/quote.ts";
import { relative } from "node:path";
import type { Policy } from "../policy/index.ts";
import type { Position } from "../repo/where.ts";
import {
  DIVERGENCE_MEANING,
  divergence,
  freshness,
  isHistory,
  span,
  type Divergence,
  type FreshnessVerdict,
} from "./labels.ts";
import { sections, trimmedSection } from "./markdown.ts";
import type { Resolved } from "./resolve.ts";
import type { ClaimsCheck } from "./claims.ts";
import type { SharedBy } from "./shared.ts";

export type View = {
  path: string;
  match: string;
  tier: number;
  created_at: string;
  age?: string;
  task_id: string;
  how: string;
  session: string;
  head: string;
  divergence: Divergence;
  divergence_meaning: string;
  freshness: FreshnessVerdict["state"];
  freshness_reason: string;
  history: boolean;
  history_why?: string;
  working_tree_then: string;
  next_action?: string[];
  next_action_withheld?: string;
  /** The record's own account of where things stand, in its author's words (a derived record's is composed). */
  objective?: string[];
  current_state?: string[];
  body: string;
  claims?: ClaimsCheck;
  shared?: SharedBy;
  live_author?: { session_id: string; provider: string; last_seen: string };
};

/**
 * `checking`: citations are checked beside it, from the files of the commits since (which the label's walk lists
 * too). `tasks`: whose records may still tell the next step; another task's record is history, however fresh.
 */
export type Showing = {
  checking?: boolean;
  tasks?: { active?: string; carried?: string; ended?: { task_id: string; outcome: string; note?: string } };
};

function overWhy(record: Resolved, tasks: Showing["tasks"]): string | undefined {
  const id = record.meta.task_id;
  if (!tasks || record.tier !== 0 || id === "none" || id === tasks.active || id === tasks.carried) return undefined;
  if (tasks.ended?.task_id === id)
    return `its task ${id} was finished (${tasks.ended.outcome}) after it was written${tasks.ended.note ? `; the note it was finished with is ${tasks.ended.note}` : ""}`;
  return `its task ${id} is over (${tasks.active ? `task ${tasks.active} is active now` : "no task is active"})`;
}

export async function view(
  record: Resolved,
  position: Position,
  policy: Policy | undefined,
  at: Date,
  showing: Showing = {},
): Promise<View> {
  const need = showing.checking && (record.meta.claims?.length ?? 0) > 0 ? "files" : "commits";
  return viewWith(record, await divergence(record.meta, position, need), position, policy, at, showing.tasks);
}

export function viewWith(
  record: Resolved,
  label: Divergence,
  position: Pick<Position, "worktree">,
  policy: Policy | undefined,
  at: Date,
  tasks?: Showing["tasks"],
): View {
  const fresh = freshness(record.meta.created_at, at, policy);
  const over = overWhy(record, tasks);
  const history = over !== undefined || isHistory(fresh);
  const why = over ?? `it is ${fresh.state} (${fresh.reason})`;
  // A record an earlier version kept unredacted is shown redacted: every surface reads it here.
  const body = redactOnRead(record.body);
  const parts = sections(body);
  const next = parts.get("Next Action");
  const nextLines = next ? trimmedSection(next) : undefined;
  const told = (name: string) => sectionLines(parts, name);
  return {
    path: relative(position.worktree, record.path),
    match: record.match,
    tier: record.tier,
    created_at: record.meta.created_at,
    age: fresh.ageMinutes !== undefined && fresh.ageMinutes >= 0 ? span(fresh.ageMinutes) : undefined,
    task_id: record.meta.task_id,
    how: record.meta.how,
    session: record.meta.session,
    head: record.meta.head,
    divergence: label,
    divergence_meaning: DIVERGENCE_MEANING[label],
    freshness: fresh.state,
    freshness_reason: fresh.reason,
    history,
    ...(history ? { history_why: why } : {}),
    working_tree_then: record.meta.working_tree,
    next_action: history ? undefined : nextLines,
    next_action_withheld:
      history && nextLines && nextLines.length > 0
        ? `${capitalized(why)}: history, not instruction. Its Next Action was true when written ` +
          `and is withheld; read ${relative(position.worktree, record.path)} for context and ` +
          `decide from the repository as it stands.`
        : undefined,
    ...(told("Objective") ? { objective: told("Objective") } : {}),
    ...(told("Current State") ? { current_state: told("Current State") } : {}),
    body,
  };
}

function sectionLines(parts: Map<string, string[]>, name: string): string[] | undefined {
  const text = parts.get(name);
  const lines = text ? trimmedSection(text) : undefined;
  return lines && lines.length > 0 ? lines : undefined;
}

export function withoutNextAction(body: string): string {
  const out: string[] = [];
  const seen = new Set<string>();
  let skipping = false;
  for (const line of body.split("\n")) {
    const heading = /^#\s+(.+?)\s*$/.exec(line)?.[1];
    // As sections() reads them: a heading seen before is a line of the section it stands in.
    if (heading !== undefined && !seen.has(heading)) {
      seen.add(heading);
      skipping = heading === "Next Action";
    }
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}

export function headerLines(kind: string, v: View): string[] {
  const lines = [
    `${kind[0]!.toUpperCase()}${kind.slice(1)}: ${v.path}`,
    `Match: ${v.match}`,
    `Git state: ${v.divergence} (${v.divergence_meaning})`,
    `Freshness: ${v.freshness} (${v.freshness_reason})`,
    `Created: ${v.created_at}${v.age ? ` (${v.age} ago)` : ""}, ${v.how}${v.session !== "none" ? `, in episode ${v.session}` : ""}`,
    `Task: ${v.task_id}`,
  ];
  if (v.shared)
    lines.push(
      `Shared by ${field(v.shared.author)} from another checkout ` +
        `(${field(v.shared.checkout)}), ${field(v.shared.shared_at)}: offered because this ` +
        `checkout has no authored handover of its own for this branch.`,
    );
  if (v.divergence === "diverged" || v.divergence === "different_context" || v.divergence === "unknown")
    lines.push(`WARNING: trust git, not this record: ${v.divergence_meaning}.`);
  if (v.history) lines.push(`HISTORY: ${v.history_why ?? v.freshness}; its Next Action is withheld.`);
  return lines;
}
