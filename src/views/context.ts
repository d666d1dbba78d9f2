/**
 * `majordomus context`: everything the layer knows in authority order, fitted by the one budget: the Next Action
 * first and whole when it fits, every section yielding to its short form before a word is cut. Every printed line is
 * counted, the BUDGET trailer too. Pure.
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
import {
  authorship,
  claimLines,
  claimsSummary,
  liveAuthorLine,
  ownRecordsLine,
  sharedLine,
  showCommand,
  actedJson,
  actedLines,
  actedWhole,
  untrustedLine,
  warnsAgainst,
} from "./common.ts";
import { CLAIMS_KEPT } from "../records/claims.ts";
import { sizeOf } from "../lib/fit.ts";
import { nextActionQuote } from "./quotes.ts";
import { printable } from "../lib/printable.ts";
import { spend, type Part, type Quote } from "./budget.ts";
import { field, fields, quoted } from "../lib/quote.ts";

export type SectionId = "git" | "task" | "questions" | "decisions" | "checkpoint" | "handover" | "files" | "history";

type Section = { id: SectionId; title: string; lines: string[]; short?: string[] };

const WORTH: readonly SectionId[] = [
  "git",
  "task",
  "questions",
  "handover",
  "checkpoint",
  "decisions",
  "files",
  "history",
];

/** Claude Code 2.1.332 previews a tool result over 20,000 characters; 18,000 leaves a margin. */
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
  handover_acted: ReturnType<typeof actedJson>;
};

function recordHeader(v: View, since: View | undefined, at: Date): string[] {
  const header = [
    `path: ${v.path}`,
    `labels: ${v.divergence} · ${v.freshness} (${v.freshness_reason})`,
    `match: ${v.match}; created ${v.created_at}${v.age !== undefined ? ` (${v.age} ago)` : ""}; ` +
      `task ${v.task_id}; ${v.how}${v.session !== "none" ? `; episode ${v.session}` : ""}`,
  ];
  if (warnsAgainst(v.divergence)) header.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}.`);
  if (v.shared) header.push(sharedLine(v.shared, at));
  if (v.live_author) header.push(liveAuthorLine(v.live_author, at));
  if (since)
    header.push(
      `since then: derived ${since.path} (${since.age !== undefined ? `${since.age} ago` : "age unknown"}${since.session !== "none" ? `, episode ${since.session}` : ""}); ` +
        `it adds git's and the ledger's facts and does not replace this record`,
    );
  return header;
}

function recordText(v: View, quotedAbove: boolean): { lines: string[]; short: string[] } {
  const cited = v.claims ? claimLines(v.claims, CLAIMS_KEPT) : [];
  const citedShort = v.claims ? [claimsSummary(v.claims)] : [];
  const text = v.history || quotedAbove ? withoutNextAction(v.body) : v.body;
  const body = text.split("\n").filter((l) => l.trim() !== "");
  const tail = v.next_action_withheld ? [v.next_action_withheld] : [];
  const intro = quotedAbove ? ["The rest of the record, quoted:"] : ["The record, quoted:"];
  const pointer = `rest of the body omitted for the budget — \`${showCommand(v)}\` prints it`;
  return {
    lines: [...cited, ...(body.length ? [...intro, ...body.map(quoted)] : []), ...tail],
    short: [...citedShort, ...(body.length ? [pointer] : []), ...tail],
  };
}

function absent(id: "checkpoint" | "handover", title: string, fact: RecordFact, excluded: Excluded[]): boolean {
  const noun = id;
  if (fact.error) excluded.push({ item: title, reason: `the records could not be read: ${fact.error}` });
  if (fact.skipped > 0)
    excluded.push({
      item: `${fact.skipped} malformed ${noun} record(s)`,
      reason: `skipped; see \`majordomus ${noun} --list\``,
    });
  if (fact.view) return false;
  if (!fact.error)
    excluded.push({
      item: title,
      reason: `no ${noun} for this worktree and branch (other branches are never offered)`,
    });
  return true;
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
    `branch: ${field(p.branch)}`,
    `head: ${p.head}`,
    `working tree: ${snap.workingTree}${snap.changed.length ? ` (${snap.changed.length} path(s) changed)` : ""}`,
  ];
  const own = ownRecordsLine(snap.ownRecords);
  if (own) gitLines.push(own);
  if (task && f.sinceTask) {
    const label = f.sinceTask.label;
    git.task_record = label;
    gitLines.push(`task record: ${label} (recorded on ${field(task.branch)} at ${task.head.slice(0, 7)})`);
    if (warnsAgainst(label))
      gitLines.push(
        `WARNING: the task record is ${label}: ${DIVERGENCE_MEANING[label]}. Trust git, not the records below.`,
      );
  }
  if (f.taskProblem) gitLines.push(`WARNING: ${f.taskProblem}`);
  const untrusted = untrustedLine(f.untrusted);
  if (untrusted) gitLines.push(`WARNING: ${untrusted}`);

  const taskLines = task
    ? [
        `id: ${task.id} (${task.outcome}, profile ${task.profile}, owner ${field(task.owner)})`,
        `task: ${field(task.task, 2_000)}`,
        `scope: ${fields(task.scope)}`,
        `started: ${task.started_at} (${ago(f.at, task.started_at)})`,
        `last checkpoint: ${task.checkpoint_at} (${ago(f.at, task.checkpoint_at)})`,
      ]
    : [
        "none active. Working outside a task is allowed; to give the work an objective: " +
          'majordomus start "<task>" --scope <paths>',
      ];
  const taskShort = task
    ? [
        `id: ${task.id} (${task.outcome}); task: ${field(task.task, 200)}`,
        `scope: ${task.scope.length} path(s) (\`majordomus context --json\` has them)`,
      ]
    : undefined;

  const q = f.questions;
  const malformed = describeMalformed(q).map((m) => `MALFORMED: ${m}`);
  const blocks = `${q.open.length} unresolved; each refuses \`majordomus finish --outcome completed\``;
  const questionLines = [
    ...(q.open.length === 0 ? ["none; nothing blocks acceptance in this checkout"] : [`${blocks}:`]),
    ...q.open
      .slice(0, maxItems)
      .map((item, i) => `${i + 1}. ${field(item.text, 400)} (task ${item.taskId}, opened ${item.opened})`),
    ...(q.open.length > maxItems ? [`... and ${q.open.length - maxItems} more: \`majordomus question list\``] : []),
    ...malformed,
  ];

  const decisions = [...f.decisions].reverse().slice(0, recent);
  const sections: Section[] = [
    { id: "git", title: "GIT", lines: gitLines },
    { id: "task", title: "TASK", lines: taskLines, ...(taskShort ? { short: taskShort } : {}) },
    {
      id: "questions",
      title: "OPEN QUESTIONS",
      lines: questionLines,
      ...(q.open.length > 0 ? { short: [`${blocks}; \`majordomus question list\` lists them.`, ...malformed] } : {}),
    },
  ];
  if (decisions.length > 0)
    sections.push({
      id: "decisions",
      title: "DECISIONS",
      lines: decisions.map(
        (d) => `- ${d.date} ${field(d.title, 400)} (task ${d.task}, head ${d.head.slice(0, 7)}): ${field(d.why, 600)}`,
      ),
      short: [],
    });
  else excluded.push({ item: "DECISIONS", reason: "none recorded in this checkout" });

  const checkpoint = f.checkpoint.view;
  if (!absent("checkpoint", "LATEST CHECKPOINT", f.checkpoint, excluded)) {
    const text = recordText(checkpoint!, false);
    const header = recordHeader(checkpoint!, f.checkpoint.since, f.at);
    sections.push({
      id: "checkpoint",
      title: "LATEST CHECKPOINT",
      lines: [...header, ...text.lines],
      short: [...header, ...text.short],
    });
  }
  const handover = f.handover.view;
  let quote: Quote | undefined;
  const handoverParts: Part[] = [];
  if (!absent("handover", "LATEST COMPATIBLE HANDOVER", f.handover, excluded)) {
    const v = handover!;
    const next = !v.history && v.next_action && v.next_action.length > 0 ? v.next_action : undefined;
    const text = recordText(v, next !== undefined);
    handoverParts.push({
      id: "handover-header",
      lines: [
        "## LATEST COMPATIBLE HANDOVER",
        ...recordHeader(v, f.handover.since, f.at),
        ...(f.handover.acted ? actedLines(f.handover.acted, f.at) : []),
        ...(next
          ? [
              actedWhole(f.handover.acted)
                ? `Next Action, ${authorship(v)}, every step of which was acted on since: what was asked, quoted:`
                : `Next Action, ${authorship(v)}, quoted:`,
            ]
          : []),
      ],
    });
    quote = nextActionQuote(v, f.handover.acted, "handover-header", false);
    handoverParts.push({
      id: "handover",
      lines: [...text.lines, ""],
      short: { lines: [...text.short, ""], cut: cutOf("the handover's body") },
    });
    sections.push({
      id: "handover",
      title: "LATEST COMPATIBLE HANDOVER",
      lines: [...handoverParts[0]!.lines.slice(1), ...(next ?? []).map(quoted), ...text.lines],
      short: [...handoverParts[0]!.lines.slice(1), ...(next ?? []).map(quoted), ...text.short],
    });
  }

  if (task) {
    const files = f.files.filter((file) => inTaskScope(task, file));
    const shown = files.slice(0, maxItems).map((file) => field(file, 400));
    if (files.length > maxItems) shown.push(`... and ${files.length - maxItems} more file(s)`);
    sections.push({
      id: "files",
      title: `FILES TOUCHED IN SCOPE (${files.length})`,
      lines: files.length ? shown : ["none since the task started"],
      short: [],
    });
  } else excluded.push({ item: "FILES TOUCHED IN SCOPE", reason: "no active task, so no scope" });

  const history = f.history
    .slice(0, maxItems)
    .map((e) => printable(formatEntry(e)))
    .reverse();
  sections.push({
    id: "history",
    title: `RECENT HISTORY (last ${history.length} event(s))`,
    lines: history,
    short: [],
  });

  return {
    generated_at: isoStamp(f.at),
    ...fit(sections, handoverParts, quote, excluded, { lines: limit, chars }, f.at),
    git,
    task,
    checkpoint: f.checkpoint.view ?? null,
    handover: f.handover.view ?? null,
    handover_since: f.handover.since ?? null,
    handover_acted: actedJson(f.handover.acted, f.at),
  };
}

export const CONTEXT_NEEDS = [
  "handover",
  "checkpoint",
  "claims",
  "since_task",
  "decisions",
  "history",
  "live",
] as const satisfies readonly Need[];

const cutOf = (part: string) => ({ part, what: "summarised", command: "majordomus context --budget-chars 40000" });

type Limits = { lines: number; chars: number };

function fit(
  sections: Section[],
  handover: Part[],
  quote: Quote | undefined,
  excluded: Excluded[],
  limits: Limits,
  at: Date,
): Pick<Context, "lines" | "over" | "budget" | "sections" | "excluded"> {
  const part = (s: Section): Part => ({
    id: s.id,
    lines: [`## ${s.title}`, ...s.lines, ""],
    ...(s.short
      ? { short: { lines: s.short.length ? [`## ${s.title}`, ...s.short, ""] : [], cut: cutOf(s.title) } }
      : {}),
  });
  const before = sections.filter((s) => !["files", "history", "handover"].includes(s.id)).map(part);
  const after = sections.filter((s) => s.id === "files" || s.id === "history").map(part);
  const top: Part = {
    id: "top",
    lines: [
      `# majordomus context — ${isoStamp(at)}`,
      "A projection of the layer's records; where they disagree with git, git wins.",
      "",
    ],
  };
  const excludedPart: Part = {
    id: "excluded",
    lines: ["## EXCLUDED", ...(excluded.length ? excluded.map((e) => `- ${e.item} — ${e.reason}`) : ["nothing"]), ""],
  };
  // The trailer is spent as a part at its widest, written once the rest is known.
  const droppable = [
    ...sections.filter((s) => s.short).map((s) => s.title),
    "LATEST COMPATIBLE HANDOVER Next Action (in part)",
  ];
  const budgetLine = (n: number, besides: number, c: number, dropped: readonly string[]) =>
    `${n > limits.lines ? `${n} lines (${besides} of ${limits.lines} besides the Next Action)` : `${n} of ${limits.lines} lines`}, ${c.toLocaleString("en-US")} of ${limits.chars.toLocaleString("en-US")} characters${dropped.length ? ` (dropped: ${dropped.join(", ")})` : ""}`;
  const widest = budgetLine(99_999, 9_999, 9_999_999, droppable);
  const trailer: Part = { id: "trailer", lines: ["## BUDGET", widest] };
  const spent = spend([top, ...before, ...handover, ...after, excludedPart, trailer], quote, {
    order: WORTH,
    maxLines: limits.lines,
    linesKey: "context.builder_budget_lines",
    budget: { chars: limits.chars, counts: "utf16", channel: "the context budget" },
    closing: () => undefined,
    cutAtEnd: (l) => `(Cut here to fit ${l}: raise --budget-lines or --budget-chars.)`,
  });
  const dropped = [
    ...spent.shortened.map((id) =>
      id === "handover" ? "LATEST COMPATIBLE HANDOVER body" : (sections.find((s) => s.id === id)?.title ?? id),
    ),
    ...(spent.withheld > 0 ? ["LATEST COMPATIBLE HANDOVER Next Action (in part)"] : []),
  ];
  const quotedLines = spent.quoted;
  const lines = spent.lines.at(-1) === widest ? spent.lines.slice(0, -1) : spent.lines;
  // The BUDGET line counts itself.
  const n = lines.length + 1;
  const size = sizeOf(lines, "utf16") + 1;
  let line = budgetLine(n, n - quotedLines, size, dropped);
  for (let i = 0; i < 3; i++) line = budgetLine(n, n - quotedLines, size + line.length, dropped);
  lines.push(line);
  const over = n - quotedLines > limits.lines || sizeOf(lines, "utf16") > limits.chars;
  return {
    lines,
    over,
    budget: {
      lines: lines.length,
      limit: limits.lines,
      chars: sizeOf(lines, "utf16"),
      chars_limit: limits.chars,
      dropped,
    },
    sections: sections.map((s) => ({
      id: s.id,
      title: s.title,
      lines: spent.shortened.includes(s.id) && s.short ? s.short : s.lines,
      shrunk: spent.shortened.includes(s.id),
    })),
    excluded: [...excluded, ...dropped.map((item) => ({ item, reason: "summarised to fit the context budget" }))],
  };
}
