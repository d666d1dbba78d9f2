/**
 * The briefing a client's start event prints: which episode this is, where git stands, the task,
 * what blocks acceptance, and what the last worker left, labelled against git and by age. At most
 * `session.briefing_budget_lines` lines, plus one line naming exactly how many were withheld.
 * Never conversation text. A pure view over the facts: a table of sections, each a function.
 */
import type { Facts, Need } from "../facts/facts.ts";
import { requireNumber } from "../policy/index.ts";
import { DIVERGENCE_MEANING } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import { ownRecordsLine, warnsAgainst } from "./common.ts";

/** Open questions shown by name (the rest are counted). */
const QUESTIONS_SHOWN = 5;

export type Briefing = { lines: string[]; withheld: number };

/** What the briefing is composed from, beyond what every view gets. */
export const BRIEFING_NEEDS = ["handover"] as const satisfies readonly Need[];

type Section = (f: Facts) => string[];

const header: Section = (f) => {
  const p = f.position;
  const e = f.episode;
  const lines = [
    "## majordomus — what this repository already knows",
    "",
    `Episode ${e ? `${e.session_id} (${e.kept ? "resumed" : "opened now"})` : "(none open)"}, on ${p.branch} at ${p.head.slice(0, 7)}, working tree ${f.snapshot.workingTree}${f.snapshot.why ? ` (${f.snapshot.why})` : ""}.`,
  ];
  const own = ownRecordsLine(f.snapshot.ownRecords);
  if (own) lines.push(own);
  return lines;
};

const task: Section = (f) => {
  const t = f.task;
  const lines = t
    ? [`Task ${t.id} (${t.outcome}, profile ${t.profile}): ${t.task}`, `Scope: ${t.scope.join(", ")}`]
    : [`No active task. Working outside a task is allowed; \`majordomus start "<task>" --scope <paths>\` gives the work an objective.`];
  if (f.taskProblem) lines.push(`WARNING: ${f.taskProblem}`);
  return lines;
};

const questions: Section = (f) => {
  const q = f.questions;
  const lines: string[] = [];
  if (q.open.length > 0) {
    lines.push("", `BLOCKED: ${q.open.length} open question(s); each refuses \`majordomus finish --outcome completed\`:`);
    for (const item of q.open.slice(0, QUESTIONS_SHOWN)) lines.push(`- ${item.text} (task ${item.taskId}, ${item.opened})`);
    if (q.open.length > QUESTIONS_SHOWN) lines.push(`- … and ${q.open.length - QUESTIONS_SHOWN} more: \`majordomus question list\``);
  }
  if (q.malformed.length > 0) lines.push(`WARNING: ${q.malformed.length} malformed line(s) in ${q.path}: \`majordomus question list\` names them.`);
  return lines;
};

/** A line of record text as quoted data. */
export const quoted = (line: string) => (line === "" ? ">" : `> ${line}`);

const age = (v: View) => (v.age ? `${v.age} old` : "age unknown");

/** Who wrote a Next Action: the reader must know whether these are a worker's words. */
export function authorship(v: View): string {
  return v.how === "authored" ? "in its author's own words" : "derived by majordomus from the records; no one wrote it";
}

const handover: Section = (f) => {
  const h = f.handover;
  const lines = [""];
  if (h.error) return [...lines, `The last handover could not be read (${h.error}); \`majordomus handover --resolve\` shows why.`];
  if (h.skipped > 0) lines.push(`(${h.skipped} malformed handover record(s) were skipped.)`);
  const v = h.view;
  if (!v) return [...lines, `No relevant handover for this worktree and branch (${f.position.branch}); records from other branches are never offered.`];
  const labels = `${v.how}, ${v.match}, ${v.divergence}, ${v.freshness}, ${age(v)}`;
  if (v.history) {
    lines.push(`Historical handover ${v.path} (${labels}).`);
    lines.push(`It is ${v.freshness}: ${v.freshness_reason}. It is context, not an instruction: its Next Action was true when written and is deliberately not quoted. Decide what to do from the repository as it stands.`);
  } else {
    lines.push(`Handover ${v.path} (${labels}).`);
    if (warnsAgainst(v.divergence)) lines.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}. Git wins where they disagree.`);
    // The record's own text is quoted as data: it may come from anyone who could write the file.
    if (v.next_action && v.next_action.length > 0) lines.push(`Its Next Action, ${authorship(v)}, quoted:`, ...v.next_action.map(quoted));
    else lines.push("It has no Next Action section.");
  }
  if (h.since) {
    const s = h.since;
    lines.push(`Since then: a derived record ${s.path} (${s.age !== undefined ? `${s.age} old` : "age unknown"}${s.session !== "none" ? `, written when episode ${s.session} ended or compacted` : ""}) adds only what git and the ledger say; it does not replace the account above.`);
  }
  return lines;
};

const footer: Section = () => ["", "Run `majordomus context` for the whole picture, and `majordomus check` before claiming anything is done."];

/** The briefing's sections, in order. */
export const BRIEFING_SECTIONS: ReadonlyArray<{ id: string; write: Section }> = [
  { id: "header", write: header },
  { id: "task", write: task },
  { id: "questions", write: questions },
  { id: "handover", write: handover },
  { id: "footer", write: footer },
];

export function briefing(f: Facts): Briefing {
  const budget = requireNumber(f.policy, "session.briefing_budget_lines");
  const lines = BRIEFING_SECTIONS.flatMap((s) => s.write(f));
  if (lines.length <= budget) return { lines, withheld: 0 };
  const shown = lines.slice(0, budget);
  const withheld = lines.length - budget;
  shown.push(`… ${withheld} more line(s) withheld by session.briefing_budget_lines; run \`majordomus context\` for the whole briefing.`);
  return { lines: shown, withheld };
}
