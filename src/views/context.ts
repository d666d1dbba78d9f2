/**
 * `majordomus context`: one read-only projection of everything the layer knows, in authority
 * order, fitted to a line budget and a character budget (what an agent's tool call is handed
 * whole). A pure view over the facts.
 *
 * When the document is over budget, sections give way in DROP_ORDER: whole sections first, then
 * the checkpoint and handover shrink to their header and a pointer to the file, then they go.
 * GIT, TASK and OPEN QUESTIONS are never dropped. Every line printed is counted, the BUDGET
 * trailer included.
 */
import { inScope } from "../lib/scope.ts";
import { isoStamp } from "../lib/clock.ts";
import type { Facts, Need, RecordFact } from "../facts/facts.ts";
import { formatEntry } from "../ledger/format.ts";
import { requireNumber } from "../policy/index.ts";
import { describeMalformed } from "../questions/store.ts";
import { ago, DIVERGENCE_MEANING } from "../records/labels.ts";
import { withoutNextAction, type View } from "../records/view.ts";
import type { Task } from "../task/record.ts";
import { authorship, CLAIMS_SHOWN, claimLines, liveAuthorLine, sharedLine } from "./briefing.ts";
import { CLAIMS_KEPT } from "../records/claims.ts";
import { ownRecordsLine, showCommand, warnsAgainst } from "./common.ts";
import { headThatFits, sizeOf } from "../lib/fit.ts";

export type SectionId = "git" | "task" | "questions" | "decisions" | "checkpoint" | "handover" | "files" | "history";

type Section = {
  id: SectionId;
  title: string;
  lines: string[];
  short?: string[];
  next?: { lines: string[]; command: string };
};

/** What gives way when over budget, in order: a section dropped, or shrunk to its header. */
const DROP_ORDER: ReadonlyArray<{ id: SectionId; step: "drop" | "shrink" | "cut" }> = [
  { id: "history", step: "drop" },
  { id: "files", step: "drop" },
  { id: "decisions", step: "drop" },
  { id: "checkpoint", step: "shrink" },
  { id: "handover", step: "shrink" },
  { id: "checkpoint", step: "drop" },
  { id: "handover", step: "cut" },
  { id: "handover", step: "drop" },
];

/**
 * The characters `context` prints by default: a tool result over 20,000 characters is replaced by a
 * preview in Claude Code 2.1.332 (its binary's tool-result threshold), so 18,000 leaves a margin.
 * `context.builder_budget_chars` or `--budget-chars` sets another.
 */
export const CONTEXT_CHARS = 18_000;

export type Excluded = { item: string; reason: string };
export type Context = {
  generated_at: string;
  lines: string[];
  over: boolean;
  budget: { lines: number; limit: number; chars: number; chars_limit: number; dropped: string[] };
  sections: Array<{ id: SectionId; title: string; lines: string[]; shrunk: boolean }>;
  excluded: Excluded[];
  git: {
    repository: string;
    worktree: string;
    branch: string;
    head: string;
    working_tree: string;
    own_records_uncommitted: string[];
    task_record?: string;
  };
  task: Task | null;
  checkpoint: View | null;
  handover: View | null;
  handover_since: View | null;
};

function recordLines(v: View, since: View | undefined, at: Date): { lines: string[]; short: string[] } {
  const header = [
    `path: ${v.path}`,
    `labels: ${v.divergence} · ${v.freshness} (${v.freshness_reason})`,
    `match: ${v.match}; created ${v.created_at}${v.age !== undefined ? ` (${v.age} ago)` : ""}; task ${v.task_id}; ${v.how}${v.session !== "none" ? `; episode ${v.session}` : ""}`,
  ];
  if (warnsAgainst(v.divergence)) header.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}.`);
  if (v.shared) header.push(sharedLine(v.shared, at));
  if (v.live_author) header.push(liveAuthorLine(v.live_author, at));
  if (!v.history && v.next_action) header.push(`Next Action ${authorship(v)}.`);
  const sinceLines = since
    ? [
        `since then: derived ${since.path} (${since.age !== undefined ? `${since.age} ago` : "age unknown"}${since.session !== "none" ? `, episode ${since.session}` : ""}); it adds git's and the ledger's facts and does not replace this record`,
      ]
    : [];
  // What the record cites, labelled against the tree now: all of it here, only the news when shrunk.
  const cited = v.claims ? claimLines(v.claims, CLAIMS_KEPT) : [];
  const citedShort = v.claims ? claimLines(v.claims, CLAIMS_SHOWN, true) : [];
  const body = (v.history ? withoutNextAction(v.body) : v.body).split("\n").filter((l) => l.trim() !== "");
  const tail = v.next_action_withheld ? [v.next_action_withheld] : [];
  // Shrunk, a record keeps its Next Action (the agent's own words come first) and drops the rest of its body.
  const next = !v.history && v.next_action ? v.next_action : [];
  const omitted = `rest of the body omitted for the budget — \`${showCommand(v)}\` prints it`;
  return {
    lines: [...header, ...sinceLines, ...cited, ...body, ...tail],
    short: [...header, ...sinceLines, ...(next.length ? ["Next Action:", ...next] : []), ...citedShort, omitted],
  };
}

function recordSection(
  id: "checkpoint" | "handover",
  title: string,
  noun: string,
  command: string,
  fact: RecordFact,
  excluded: Excluded[],
  at: Date,
): Section | undefined {
  if (fact.error) excluded.push({ item: title, reason: `the records could not be read: ${fact.error}` });
  if (fact.skipped > 0)
    excluded.push({
      item: `${fact.skipped} malformed ${noun} record(s)`,
      reason: `skipped; see \`majordomus ${command} --list\``,
    });
  if (!fact.view) {
    if (!fact.error)
      excluded.push({
        item: title,
        reason: `no ${noun} for this worktree and branch (other branches are never offered)`,
      });
    return undefined;
  }
  const r = recordLines(fact.view, fact.since, at);
  return {
    id,
    title,
    ...r,
    ...(id === "handover" && !fact.view.history && fact.view.next_action
      ? { next: { lines: fact.view.next_action, command: showCommand(fact.view) } }
      : {}),
  };
}

const inTaskScope = (task: Task, file: string) => inScope(task.scope, file);

export function contextView(f: Facts, options: { budget?: number; chars?: number } = {}): Context {
  const limit = options.budget ?? requireNumber(f.policy, "context.builder_budget_lines");
  const chars = options.chars ?? f.policy.policy.context?.builder_budget_chars ?? CONTEXT_CHARS;
  const maxItems = requireNumber(f.policy, "context.max_list_items");
  const recent = requireNumber(f.policy, "context.recent_decisions");
  const p = f.position;
  const excluded: Excluded[] = [];
  const task = f.task ?? null;
  const snap = f.snapshot;

  const git: Context["git"] = {
    repository: p.repositoryId,
    worktree: p.worktree,
    branch: p.branch,
    head: p.head,
    working_tree: snap.workingTree,
    own_records_uncommitted: snap.ownRecords,
  };
  const gitLines = [
    `repository: ${p.repositoryId}`,
    `worktree: ${p.worktree}`,
    `branch: ${p.branch}`,
    `head: ${p.head}`,
    `working tree: ${snap.workingTree}${snap.changed.length ? ` (${snap.changed.length} path(s) changed)` : ""}`,
  ];
  const own = ownRecordsLine(snap.ownRecords);
  if (own) gitLines.push(own);
  if (task && f.sinceTask) {
    const label = f.sinceTask.label;
    git.task_record = label;
    gitLines.push(`task record: ${label} (recorded on ${task.branch} at ${task.head.slice(0, 7)})`);
    if (warnsAgainst(label))
      gitLines.push(
        `WARNING: the task record is ${label}: ${DIVERGENCE_MEANING[label]}. Trust git, not the records below.`,
      );
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
    : [
        'none active. Working outside a task is allowed; to give the work an objective: majordomus start "<task>" --scope <paths>',
      ];

  const q = f.questions;
  const questionLines = [
    ...(q.open.length === 0
      ? ["none; nothing blocks acceptance in this checkout"]
      : [`${q.open.length} unresolved; each refuses \`majordomus finish --outcome completed\`:`]),
    ...q.open.map((item, i) => `${i + 1}. ${item.text} (task ${item.taskId}, opened ${item.opened})`),
    ...describeMalformed(q).map((m) => `MALFORMED: ${m}`),
  ];

  const decisions = [...f.decisions].reverse().slice(0, recent);
  const sections: Section[] = [
    { id: "git", title: "GIT", lines: gitLines },
    { id: "task", title: "TASK", lines: taskLines },
    { id: "questions", title: "OPEN QUESTIONS", lines: questionLines },
  ];
  if (decisions.length > 0)
    sections.push({
      id: "decisions",
      title: "DECISIONS",
      lines: decisions.map((d) => `- ${d.date} ${d.title} (task ${d.task}, head ${d.head.slice(0, 7)}): ${d.why}`),
    });
  else excluded.push({ item: "DECISIONS", reason: "none recorded in this checkout" });

  const checkpoint = recordSection(
    "checkpoint",
    "LATEST CHECKPOINT",
    "checkpoint",
    "checkpoint",
    f.checkpoint,
    excluded,
    f.at,
  );
  if (checkpoint) sections.push(checkpoint);
  const handover = recordSection(
    "handover",
    "LATEST COMPATIBLE HANDOVER",
    "handover",
    "handover",
    f.handover,
    excluded,
    f.at,
  );
  if (handover) sections.push(handover);

  if (task) {
    const files = f.files.filter((file) => inTaskScope(task, file));
    const shown = files.slice(0, maxItems);
    if (files.length > maxItems) shown.push(`... and ${files.length - maxItems} more file(s)`);
    sections.push({
      id: "files",
      title: `FILES TOUCHED IN SCOPE (${files.length})`,
      lines: files.length ? shown : ["none since the task started"],
    });
  } else excluded.push({ item: "FILES TOUCHED IN SCOPE", reason: "no active task, so no scope" });

  const history = f.history.slice(0, maxItems).map(formatEntry).reverse();
  sections.push({ id: "history", title: `RECENT HISTORY (last ${history.length} event(s))`, lines: history });

  return {
    generated_at: isoStamp(f.at),
    ...fit(sections, excluded, { lines: limit, chars }, f.at),
    git,
    task,
    checkpoint: f.checkpoint.view ?? null,
    handover: f.handover.view ?? null,
    handover_since: f.handover.since ?? null,
  };
}

/** The needs of the context view (what `gatherFacts` must collect for it). */
export const CONTEXT_NEEDS = [
  "handover",
  "checkpoint",
  "claims",
  "since_task",
  "decisions",
  "history",
  "live",
] as const satisfies readonly Need[];

type State = { id: SectionId; title: string; lines: string[]; shrunk: boolean };

function render(states: State[], excluded: Excluded[], limits: Limits, dropped: string[], at: Date): string[] {
  const out = [
    `# majordomus context — ${isoStamp(at)}`,
    "A projection of the layer's records; where they disagree with git, git wins.",
    "",
  ];
  for (const s of states) out.push(`## ${s.title}`, ...s.lines, "");
  out.push("## EXCLUDED", ...(excluded.length ? excluded.map((e) => `- ${e.item} — ${e.reason}`) : ["nothing"]), "");
  out.push("## BUDGET");
  // The BUDGET line counts itself: the document is exactly out.length + 1 lines long, and its characters are counted with it.
  const budgetLine = (n: number, c: number) =>
    `${n} of ${limits.lines} lines, ${c.toLocaleString("en-US")} of ${limits.chars.toLocaleString("en-US")} characters${dropped.length ? ` (dropped: ${dropped.join(", ")})` : ""}`;
  const before = sizeOf(out, "utf16") + 1;
  let line = budgetLine(out.length + 1, before);
  for (let i = 0; i < 3; i++) line = budgetLine(out.length + 1, before + line.length);
  out.push(line);
  return out;
}

type Limits = { lines: number; chars: number };

function fit(
  sections: Section[],
  excludedIn: Excluded[],
  limits: Limits,
  at: Date,
): Pick<Context, "lines" | "over" | "budget" | "sections" | "excluded"> {
  const states: State[] = sections.map((s) => ({ id: s.id, title: s.title, lines: s.lines, shrunk: false }));
  const excluded = [...excludedIn];
  const dropped: string[] = [];
  const over = (l: string[]) => l.length > limits.lines || sizeOf(l, "utf16") > limits.chars;
  let lines = render(states, excluded, limits, dropped, at);
  const reason = `context budget ${limits.lines} lines, ${limits.chars.toLocaleString("en-US")} characters`;
  for (const step of DROP_ORDER) {
    if (!over(lines)) break;
    const index = states.findIndex((s) => s.id === step.id);
    if (index === -1) continue;
    const state = states[index]!;
    const section = sections.find((s) => s.id === step.id);
    if (step.step === "shrink") {
      if (!section?.short || state.shrunk) continue;
      states[index] = { ...state, lines: section.short, shrunk: true };
      excluded.push({ item: `${state.title} body`, reason });
      dropped.push(`${state.title} body`);
    } else if (step.step === "cut" && section?.next) {
      // The Next Action last of all: its head within what is left, and the command for the rest.
      const command = section.next.command;
      const header = section.short!.slice(0, section.short!.indexOf("Next Action:") + 1);
      const notice = (kept: number, partial: boolean) =>
        `… The Next Action is cut here: ${kept} of ${section.next!.lines.length} line(s) quoted${partial ? " (the last of them in part)" : ""}, ${section.next!.lines.length - kept} left out to fit the ${reason}. \`${command}\` prints the whole record.`;
      states[index] = { ...state, lines: [...header, notice(section.next.lines.length, true)], shrunk: true };
      const without = render(
        states,
        [...excluded, { item: `${state.title} Next Action (in part)`, reason }],
        limits,
        [...dropped, `${state.title} Next Action (in part)`],
        at,
      );
      const head = headThatFits(
        section.next.lines.slice(0, Math.max(0, limits.lines - without.length)),
        limits.chars - sizeOf(without, "utf16") - 1,
        "utf16",
      );
      states[index] = { ...state, lines: [...header, ...head.shown, notice(head.kept, head.partial)], shrunk: true };
      excluded.push({ item: `${state.title} Next Action (in part)`, reason });
      dropped.push(`${state.title} Next Action (in part)`);
    } else {
      states.splice(index, 1);
      excluded.push({ item: state.title, reason });
      dropped.push(state.title);
    }
    lines = render(states, excluded, limits, dropped, at);
  }
  return {
    lines,
    over: over(lines),
    budget: {
      lines: lines.length,
      limit: limits.lines,
      chars: sizeOf(lines, "utf16"),
      chars_limit: limits.chars,
      dropped,
    },
    sections: states,
    excluded,
  };
}
