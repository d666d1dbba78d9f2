/**
 * `majordomus context`: one read-only projection of everything the layer knows, in authority
 * order, fitted to a line budget. A pure view over the facts.
 *
 * When the document is over budget, sections give way in DROP_ORDER: whole sections first, then
 * the checkpoint and handover shrink to their header and a pointer to the file, then they go.
 * GIT, TASK and OPEN QUESTIONS are never dropped. Every line printed is counted, the BUDGET
 * trailer included.
 */
import { isoStamp } from "../lib/clock.ts";
import type { Facts, Need, RecordFact } from "../facts/facts.ts";
import { formatEntry } from "../ledger/format.ts";
import { requireNumber } from "../policy/index.ts";
import { describeMalformed } from "../questions/store.ts";
import { ago, DIVERGENCE_MEANING } from "../records/labels.ts";
import { withoutNextAction, type View } from "../records/view.ts";
import type { Task } from "../task/record.ts";
import { authorship } from "./briefing.ts";
import { ownRecordsLine, warnsAgainst } from "./common.ts";

export type SectionId = "git" | "task" | "questions" | "decisions" | "checkpoint" | "handover" | "files" | "history";

type Section = { id: SectionId; title: string; lines: string[]; short?: string[] };

/** What gives way when over budget, in order: a section dropped, or shrunk to its header. */
const DROP_ORDER: ReadonlyArray<{ id: SectionId; step: "drop" | "shrink" }> = [
  { id: "history", step: "drop" },
  { id: "files", step: "drop" },
  { id: "decisions", step: "drop" },
  { id: "checkpoint", step: "shrink" },
  { id: "handover", step: "shrink" },
  { id: "checkpoint", step: "drop" },
  { id: "handover", step: "drop" },
];

export type Excluded = { item: string; reason: string };
export type Context = {
  generated_at: string;
  lines: string[];
  over: boolean;
  budget: { lines: number; limit: number; dropped: string[] };
  sections: Array<{ id: SectionId; title: string; lines: string[]; shrunk: boolean }>;
  excluded: Excluded[];
  git: { repository: string; worktree: string; branch: string; head: string; working_tree: string; own_records_uncommitted: string[]; task_record?: string };
  task: Task | null;
  checkpoint: View | null;
  handover: View | null;
  handover_since: View | null;
};

function recordLines(v: View, since: View | undefined): { lines: string[]; short: string[] } {
  const header = [
    `path: ${v.path}`,
    `labels: ${v.divergence} · ${v.freshness} (${v.freshness_reason})`,
    `match: ${v.match}; created ${v.created_at}${v.age !== undefined ? ` (${v.age} ago)` : ""}; task ${v.task_id}; ${v.how}${v.session !== "none" ? `; episode ${v.session}` : ""}`,
  ];
  if (warnsAgainst(v.divergence)) header.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}.`);
  if (!v.history && v.next_action) header.push(`Next Action ${authorship(v)}.`);
  const sinceLines = since ? [`since then: derived ${since.path} (${since.age !== undefined ? `${since.age} ago` : "age unknown"}${since.session !== "none" ? `, episode ${since.session}` : ""}); it adds git's and the ledger's facts and does not replace this record`] : [];
  const body = (v.history ? withoutNextAction(v.body) : v.body).split("\n").filter((l) => l.trim() !== "");
  const tail = v.next_action_withheld ? [v.next_action_withheld] : [];
  return { lines: [...header, ...sinceLines, ...body, ...tail], short: [...header, ...sinceLines, `body omitted for the budget — read ${v.path}`] };
}

function recordSection(id: "checkpoint" | "handover", title: string, noun: string, command: string, fact: RecordFact, excluded: Excluded[]): Section | undefined {
  if (fact.error) excluded.push({ item: title, reason: `the records could not be read: ${fact.error}` });
  if (fact.skipped > 0) excluded.push({ item: `${fact.skipped} malformed ${noun} record(s)`, reason: `skipped; see \`majordomus ${command} --list\`` });
  if (!fact.view) {
    if (!fact.error) excluded.push({ item: title, reason: `no ${noun} for this worktree and branch (other branches are never offered)` });
    return undefined;
  }
  return { id, title, ...recordLines(fact.view, fact.since) };
}

const inScope = (task: Task, file: string) => task.scope.some((s) => s === "." || file === s || file.startsWith(`${s}/`));

export function contextView(f: Facts, options: { budget?: number } = {}): Context {
  const limit = options.budget ?? requireNumber(f.policy, "context.builder_budget_lines");
  const maxItems = requireNumber(f.policy, "context.max_list_items");
  const recent = requireNumber(f.policy, "context.recent_decisions");
  const p = f.position;
  const excluded: Excluded[] = [];
  const task = f.task ?? null;
  const snap = f.snapshot;

  const git: Context["git"] = { repository: p.repositoryId, worktree: p.worktree, branch: p.branch, head: p.head, working_tree: snap.workingTree, own_records_uncommitted: snap.ownRecords };
  const gitLines = [`repository: ${p.repositoryId}`, `worktree: ${p.worktree}`, `branch: ${p.branch}`, `head: ${p.head}`, `working tree: ${snap.workingTree}${snap.changed.length ? ` (${snap.changed.length} path(s) changed)` : ""}`];
  const own = ownRecordsLine(snap.ownRecords);
  if (own) gitLines.push(own);
  if (task && f.sinceTask) {
    const label = f.sinceTask.label;
    git.task_record = label;
    gitLines.push(`task record: ${label} (recorded on ${task.branch} at ${task.head.slice(0, 7)})`);
    if (warnsAgainst(label)) gitLines.push(`WARNING: the task record is ${label}: ${DIVERGENCE_MEANING[label]}. Trust git, not the records below.`);
  }
  if (f.taskProblem) gitLines.push(`WARNING: ${f.taskProblem}`);

  const taskLines = task
    ? [
        `id: ${task.id} (${task.outcome}, profile ${task.profile}, owner ${task.owner})`,
        `task: ${task.task}`,
        `scope: ${task.scope.join(", ")}`,
        `started: ${task.started_at} (${ago(f.at, task.started_at)})`,
        `last checkpoint: ${task.checkpoint_at} (${ago(f.at, task.checkpoint_at)})`,
      ]
    : ['none active. Working outside a task is allowed; to give the work an objective: majordomus start "<task>" --scope <paths>'];

  const q = f.questions;
  const questionLines = [
    ...(q.open.length === 0 ? ["none; nothing blocks acceptance in this checkout"] : [`${q.open.length} unresolved; each refuses \`majordomus finish --outcome completed\`:`]),
    ...q.open.map((item, i) => `${i + 1}. ${item.text} (task ${item.taskId}, opened ${item.opened})`),
    ...describeMalformed(q).map((m) => `MALFORMED: ${m}`),
  ];

  const decisions = [...f.decisions].reverse().slice(0, recent);
  const sections: Section[] = [
    { id: "git", title: "GIT", lines: gitLines },
    { id: "task", title: "TASK", lines: taskLines },
    { id: "questions", title: "OPEN QUESTIONS", lines: questionLines },
  ];
  if (decisions.length > 0) sections.push({ id: "decisions", title: "DECISIONS", lines: decisions.map((d) => `- ${d.date} ${d.title} (task ${d.task}, head ${d.head.slice(0, 7)}): ${d.why}`) });
  else excluded.push({ item: "DECISIONS", reason: "none recorded in this checkout" });

  const checkpoint = recordSection("checkpoint", "LATEST CHECKPOINT", "checkpoint", "checkpoint", f.checkpoint, excluded);
  if (checkpoint) sections.push(checkpoint);
  const handover = recordSection("handover", "LATEST COMPATIBLE HANDOVER", "handover", "handover", f.handover, excluded);
  if (handover) sections.push(handover);

  if (task) {
    const files = f.files.filter((file) => inScope(task, file));
    const shown = files.slice(0, maxItems);
    if (files.length > maxItems) shown.push(`... and ${files.length - maxItems} more file(s)`);
    sections.push({ id: "files", title: `FILES TOUCHED IN SCOPE (${files.length})`, lines: files.length ? shown : ["none since the task started"] });
  } else excluded.push({ item: "FILES TOUCHED IN SCOPE", reason: "no active task, so no scope" });

  const history = f.history.slice(0, maxItems).map(formatEntry).reverse();
  sections.push({ id: "history", title: `RECENT HISTORY (last ${history.length} event(s))`, lines: history });

  return {
    generated_at: isoStamp(f.at),
    ...fit(sections, excluded, limit, f.at),
    git,
    task,
    checkpoint: f.checkpoint.view ?? null,
    handover: f.handover.view ?? null,
    handover_since: f.handover.since ?? null,
  };
}

/** The needs of the context view (what `gatherFacts` must collect for it). */
export const CONTEXT_NEEDS = ["handover", "checkpoint", "since_task", "decisions", "history"] as const satisfies readonly Need[];

type State = { id: SectionId; title: string; lines: string[]; shrunk: boolean };

function render(states: State[], excluded: Excluded[], limit: number, dropped: string[], at: Date): string[] {
  const out = [`# majordomus context — ${isoStamp(at)}`, "A projection of the layer's records; where they disagree with git, git wins.", ""];
  for (const s of states) out.push(`## ${s.title}`, ...s.lines, "");
  out.push("## EXCLUDED", ...(excluded.length ? excluded.map((e) => `- ${e.item} — ${e.reason}`) : ["nothing"]), "");
  out.push("## BUDGET");
  const budgetLine = (n: number) => `${n} of ${limit} lines${dropped.length ? ` (dropped: ${dropped.join(", ")})` : ""}`;
  // The BUDGET line counts itself: the document is exactly out.length + 1 lines long.
  out.push(budgetLine(out.length + 1));
  return out;
}

function fit(sections: Section[], excludedIn: Excluded[], limit: number, at: Date): Pick<Context, "lines" | "over" | "budget" | "sections" | "excluded"> {
  const states: State[] = sections.map((s) => ({ id: s.id, title: s.title, lines: s.lines, shrunk: false }));
  const excluded = [...excludedIn];
  const dropped: string[] = [];
  let lines = render(states, excluded, limit, dropped, at);
  for (const step of DROP_ORDER) {
    if (lines.length <= limit) break;
    const index = states.findIndex((s) => s.id === step.id);
    if (index === -1) continue;
    const state = states[index]!;
    const reason = `context budget ${limit} lines`;
    if (step.step === "shrink") {
      const short = sections.find((s) => s.id === step.id)?.short;
      if (!short || state.shrunk) continue;
      states[index] = { ...state, lines: short, shrunk: true };
      excluded.push({ item: `${state.title} body`, reason });
    } else {
      states.splice(index, 1);
      excluded.push({ item: state.title, reason });
    }
    dropped.push(state.title + (step.step === "shrink" ? " body" : ""));
    lines = render(states, excluded, limit, dropped, at);
  }
  return { lines, over: lines.length > limit, budget: { lines: lines.length, limit, dropped }, sections: states, excluded };
}
