/**
 * `majordomus context`: one read-only projection of everything the layer knows, in authority
 * order, fitted to a line budget. It writes nothing and calls no model.
 *
 * When the document is over budget, sections give way in DROP_ORDER: whole sections first, then
 * the checkpoint and handover shrink to their header and a pointer to the file, then they go.
 * GIT, TASK and OPEN QUESTIONS are never dropped. Every line printed is counted, the BUDGET
 * trailer included.
 */
import { isoStamp, now } from "../lib/clock.ts";
import type { Here } from "../layer/here.ts";
import { readDecisions } from "../decisions/store.ts";
import { formatEntry } from "../ledger/format.ts";
import { newestFirst } from "../ledger/store.ts";
import { loadPolicy, requireNumber } from "../policy/index.ts";
import { describeMalformed, readQuestions } from "../questions/store.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { ago, divergence, DIVERGENCE_MEANING } from "../records/labels.ts";
import { resolveLatest } from "../records/resolve.ts";
import { view, withoutNextAction, type View } from "../records/view.ts";
import { filesSince, snapshot } from "../repo/status.ts";
import { activeTask, type Task } from "../task/record.ts";

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
  git: { repository: string; worktree: string; branch: string; head: string; working_tree: string; task_record?: string };
  task: Task | null;
  checkpoint: View | null;
  handover: View | null;
};


function recordLines(v: View): { lines: string[]; short: string[] } {
  const header = [
    `path: ${v.path}`,
    `labels: ${v.divergence} · ${v.freshness} (${v.freshness_reason})`,
    `match: ${v.match}; created ${v.created_at}; task ${v.task_id}; ${v.how}`,
  ];
  if (v.divergence === "diverged" || v.divergence === "different_context" || v.divergence === "unknown") header.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}.`);
  const body = (v.history ? withoutNextAction(v.body) : v.body).split("\n").filter((l) => l.trim() !== "");
  const tail = v.next_action_withheld ? [v.next_action_withheld] : [];
  return { lines: [...header, ...body, ...tail], short: [...header, `body omitted for the budget — read ${v.path}`] };
}

async function recordSection(id: "checkpoint" | "handover", title: string, kind: RecordKind, here: Here, policy: Awaited<ReturnType<typeof loadPolicy>>, at: Date, excluded: Excluded[]): Promise<{ section?: Section; view: View | null }> {
  const resolution = await resolveLatest(kind, here);
  if (resolution.skipped > 0) excluded.push({ item: `${resolution.skipped} malformed ${kind.noun} record(s)`, reason: `skipped; see \`majordomus ${kind.name} --list\`` });
  if (!resolution.record) {
    excluded.push({ item: title, reason: `no ${kind.noun} for this worktree and branch (other branches are never offered)` });
    return { view: null };
  }
  const v = await view(resolution.record, here.position, policy.policy, at);
  return { section: { id, title, ...recordLines(v) }, view: v };
}

export async function buildContext(here: Here, options: { budget?: number }): Promise<Context> {
  const policy = await loadPolicy(here.layer);
  const limit = options.budget ?? requireNumber(policy, "context.builder_budget_lines");
  const maxItems = requireNumber(policy, "context.max_list_items");
  const recent = requireNumber(policy, "context.recent_decisions");
  const at = now();
  const p = here.position;
  const excluded: Excluded[] = [];
  const [snap, read] = await Promise.all([snapshot(p), activeTask(here.layer)]);
  const task = read.active ?? null;

  const git: Context["git"] = { repository: p.repositoryId, worktree: p.worktree, branch: p.branch, head: p.head, working_tree: snap.workingTree };
  const gitLines = [`repository: ${p.repositoryId}`, `worktree: ${p.worktree}`, `branch: ${p.branch}`, `head: ${p.head}`, `working tree: ${snap.workingTree}${snap.changed.length ? ` (${snap.changed.length} path(s) changed)` : ""}`];
  if (task) {
    const label = await divergence({ head: task.head, branch: task.branch }, p);
    git.task_record = label;
    gitLines.push(`task record: ${label} (recorded on ${task.branch} at ${task.head.slice(0, 7)})`);
    if (label === "diverged" || label === "different_context" || label === "unknown") gitLines.push(`WARNING: the task record is ${label}: ${DIVERGENCE_MEANING[label]}. Trust git, not the records below.`);
  }
  if (read.problem) gitLines.push(`WARNING: ${read.problem}`);

  const taskLines = task
    ? [
        `id: ${task.id} (${task.outcome}, profile ${task.profile}, owner ${task.owner})`,
        `task: ${task.task}`,
        `scope: ${task.scope.join(", ")}`,
        `started: ${task.started_at} (${ago(at, task.started_at)})`,
        `last checkpoint: ${task.checkpoint_at} (${ago(at, task.checkpoint_at)})`,
      ]
    : ['none active. Working outside a task is allowed; to give the work an objective: majordomus start "<task>" --scope <paths>'];

  const questions = readQuestions(here.layer);
  const questionLines = [
    ...(questions.open.length === 0 ? ["none; nothing blocks acceptance in this checkout"] : [`${questions.open.length} unresolved; each refuses \`majordomus finish --outcome completed\`:`]),
    ...questions.open.map((q, i) => `${i + 1}. ${q.text} (task ${q.taskId}, opened ${q.opened})`),
    ...describeMalformed(questions).map((m) => `MALFORMED: ${m}`),
  ];

  const decisions = readDecisions(here.layer).reverse().slice(0, recent);
  const sections: Section[] = [
    { id: "git", title: "GIT", lines: gitLines },
    { id: "task", title: "TASK", lines: taskLines },
    { id: "questions", title: "OPEN QUESTIONS", lines: questionLines },
  ];
  if (decisions.length > 0) sections.push({ id: "decisions", title: "DECISIONS", lines: decisions.map((d) => `- ${d.date} ${d.title} (task ${d.task}, head ${d.head.slice(0, 7)}): ${d.why}`) });
  else excluded.push({ item: "DECISIONS", reason: "none recorded in this checkout" });

  const checkpoint = await recordSection("checkpoint", "LATEST CHECKPOINT", RECORD_KINDS.checkpoint, here, policy, at, excluded);
  if (checkpoint.section) sections.push(checkpoint.section);
  const handover = await recordSection("handover", "LATEST COMPATIBLE HANDOVER", RECORD_KINDS.handover, here, policy, at, excluded);
  if (handover.section) sections.push(handover.section);

  if (task) {
    const inScope = (await filesSince(p, task.head, snap)).filter((f) => task.scope.some((s) => s === "." || f === s || f.startsWith(`${s}/`)));
    const shown = inScope.slice(0, maxItems);
    if (inScope.length > maxItems) shown.push(`... and ${inScope.length - maxItems} more file(s)`);
    sections.push({ id: "files", title: `FILES TOUCHED IN SCOPE (${inScope.length})`, lines: inScope.length ? shown : ["none since the task started"] });
  } else excluded.push({ item: "FILES TOUCHED IN SCOPE", reason: "no active task, so no scope" });

  const history: string[] = [];
  for (const parsed of newestFirst(here.ledger.path)) {
    if (history.length >= maxItems) break;
    if (parsed.ok) history.push(formatEntry(parsed.entry));
  }
  sections.push({ id: "history", title: `RECENT HISTORY (last ${history.length} event(s))`, lines: history.reverse() });

  const fitted = fit(sections, excluded, limit, at);
  return {
    generated_at: isoStamp(at),
    ...fitted,
    git,
    task,
    checkpoint: checkpoint.view,
    handover: handover.view,
  };
}

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
