/**
 * The briefing a start event prints: the episode, git, the task, what blocks acceptance and what the last worker
 * left, labelled against git and by age; never conversation text. Pure: a table of parts spent by the one budget
 * (views/budget.ts), the agent's own Next Action first and whole when the channel carries it.
 */
import type { Facts, Need } from "../facts/facts.ts";
import { requireNumber } from "../policy/index.ts";
import { DIVERGENCE_MEANING } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import { liveCount, liveLines, stoppedCount, stoppedLines, stoppedText } from "./live.ts";
import {
  actedLines,
  claimLines,
  claimsSummary,
  liveAuthorLine,
  ownRecordsLine,
  sharedLabel,
  sharedLine,
  sharedShort,
  untrustedLine,
  warnsAgainst,
} from "./common.ts";
import { closing, cutAtEnd, spend, type Part, type Quote, type Spent } from "./budget.ts";
export { closing, cutAtEnd } from "./budget.ts";
import { accountQuote, nextActionQuote } from "./quotes.ts";
import type { Budget } from "../lib/fit.ts";
import { capitalized, printable } from "../lib/printable.ts";
import { field, fields } from "../lib/quote.ts";
import { BRIEFING_HEADING } from "../transcript/delivery.ts";

export type { Cut } from "./budget.ts";
export type Briefing = Spent;

export const BRIEFING_NEEDS = ["handover", "claims", "live"] as const satisfies readonly Need[];

const TASK_CHARS = 200;

type Write = (f: Facts, shown: number) => Omit<Part, "id"> | undefined;

const header: Write = (f) => {
  const p = f.position;
  const e = f.episode;
  return {
    lines: [
      BRIEFING_HEADING,
      "",
      `Episode ${e ? `${e.session_id} (${e.kept ? "resumed" : "opened now"})` : "(none open)"}, ` +
        `on ${field(p.branch)} at ${p.head.slice(0, 7)}, working tree ${f.snapshot.workingTree}${f.snapshot.why ? ` (${f.snapshot.why})` : ""}.`,
      ...(untrustedLine(f.untrusted) ? [`WARNING: ${untrustedLine(f.untrusted)}`] : []),
      ...(e?.stopped ? [`This episode ${stoppedText(e.stopped, f.at)}`] : []),
    ],
  };
};

const stopped: Write = (f) => {
  if (f.stopped.length === 0) return undefined;
  return {
    lines: stoppedLines(f.stopped, f.at),
    short: {
      lines: stoppedCount(f.stopped),
      cut: { part: "the stopped sessions", what: "counted", command: "majordomus checkpoint --show" },
    },
  };
};

const own: Write = (f) => {
  const line = ownRecordsLine(f.snapshot.ownRecords);
  if (!line) return undefined;
  return {
    lines: [line],
    short: {
      lines: [`${f.snapshot.ownRecords.length} closed session record(s) of majordomus not committed.`],
      cut: { part: "own records", what: "counted", command: "git status --short .ai/repo/sessions" },
    },
  };
};

const task: Write = (f, shown) => {
  const t = f.task;
  const problem = f.taskProblem ? [`WARNING: ${f.taskProblem}`] : [];
  if (!t)
    return {
      lines: [
        `No active task. Working outside a task is allowed; \`majordomus start "<task>" --scope ` +
          `<paths>\` gives the work an objective.`,
        ...problem,
      ],
    };
  const head = `Task ${t.id} (${t.outcome}, profile ${t.profile}):`;
  const scope = t.scope.length > shown ? `${t.scope.length} path(s), the first ${shown}: ` : "";
  return {
    lines: [`${head} ${field(t.task, 2_000)}`, `Scope: ${fields(t.scope)}`, ...problem],
    short: {
      lines: [
        `${head} ${field(t.task, TASK_CHARS)}`,
        `Scope: ${scope}${fields(t.scope.slice(0, shown), TASK_CHARS)} (\`majordomus context\` has it whole)`,
        ...problem,
      ],
      cut: { part: "the task", what: "its scope summarised", command: "majordomus context" },
    },
  };
};

const questions: Write = (f, shown) => {
  const q = f.questions;
  const whole = q.malformed.find((m) => m.whole);
  const malformed = whole
    ? [`WARNING: ${whole.text}; it was not read, so no question in it is known: \`majordomus question list\`.`]
    : q.malformed.length > 0
      ? [`WARNING: ${q.malformed.length} malformed line(s) in ${q.path}: \`majordomus question list\` names them.`]
      : [];
  if (q.open.length === 0) return malformed.length ? { lines: malformed } : undefined;
  const blocked = `BLOCKED: ${q.open.length} open question(s); each refuses \`majordomus finish --outcome completed\``;
  const lines = ["", `${blocked}:`];
  for (const item of q.open.slice(0, shown))
    lines.push(`- ${field(item.text, 400)} (task ${item.taskId}, ${item.opened})`);
  if (q.open.length > shown) lines.push(`- … and ${q.open.length - shown} more: \`majordomus question list\``);
  return {
    lines: [...lines, ...malformed],
    short: {
      lines: ["", `${blocked}; \`majordomus question list\` lists them.`, ...malformed],
      cut: { part: "open questions", what: "counted, not listed", command: "majordomus question list" },
    },
  };
};

const age = (v: View) => (v.age ? `${v.age} old` : "age unknown");

const handover: Write = (f) => {
  const h = f.handover;
  if (h.error)
    return {
      lines: ["", `The last handover could not be read (${h.error}); \`majordomus handover --resolve\` shows why.`],
    };
  const skipped = h.skipped > 0 ? [`(${h.skipped} malformed handover record(s) were skipped.)`] : [];
  const v = h.view;
  if (!v)
    return {
      lines: [
        "",
        ...skipped,
        `No relevant handover for this worktree and branch (${field(f.position.branch)}); ` +
          `records from other branches are never offered.`,
      ],
    };
  const labels = `${v.how}, ${v.shared ? sharedLabel(v.shared) : v.match}, ${v.divergence}, ${v.freshness}, ${age(v)}`;
  if (v.history)
    return {
      lines: [
        "",
        ...skipped,
        `Historical handover ${v.path} (${labels}).`,
        `${capitalized(v.history_why ?? v.freshness)}. It is context, not an instruction: its ` +
          `Next Action was true when written and is deliberately not quoted. Decide what to do ` +
          `from the repository as it stands.`,
      ],
    };
  const top = ["", ...skipped, `Handover ${v.path} (${labels}).`];
  const warn = warnsAgainst(v.divergence)
    ? [`WARNING: ${DIVERGENCE_MEANING[v.divergence]}. Git wins where they disagree.`]
    : [];
  const live = v.live_author ? [liveAuthorLine(v.live_author, f.at)] : [];
  const none = !v.next_action || v.next_action.length === 0 ? ["It has no Next Action section."] : [];
  const lines = [...top, ...(v.shared ? [sharedLine(v.shared, f.at)] : []), ...live, ...warn, ...none];
  if (!v.shared) return { lines };
  return {
    lines,
    short: {
      lines: [...top, sharedShort(v.shared), ...live, ...warn, ...none],
      cut: { part: "where it comes from", what: "said in short", command: "majordomus handover --resolve" },
    },
  };
};

/** What later sessions did of the Next Action, beside it; in short, counted. */
const acted: Write = (f) => {
  const a = f.handover.acted;
  if (!a || !f.handover.view || f.handover.view.history) return undefined;
  return {
    lines: actedLines(a, f.at),
    short: {
      lines: [
        `Since it was written, ${a.sessions} session(s) acted on ${a.acted_on.length} of the ${a.named.length} ` +
          `thing(s) it names: \`majordomus handover --resolve\` says which.`,
      ],
      cut: { part: "what was done since", what: "counted", command: "majordomus handover --resolve" },
    },
  };
};

const since: Write = (f) => {
  const s = f.handover.since;
  if (!s || !f.handover.view || f.handover.view.history) return undefined;
  return {
    lines: [
      `Since then: a derived record ${s.path} (${age(s)}${s.session !== "none" ? `, written when episode ${s.session} ended or compacted` : ""}) ` +
        `adds only what git and the ledger say; it does not replace the account above.`,
    ],
    short: {
      lines: [`Since then: a derived record (${age(s)}), not in its place: \`majordomus handover --resolve\`.`],
      cut: { part: "the record since", what: "named in short", command: "majordomus handover --resolve" },
    },
  };
};

const live: Write = (f, shown) => {
  const lines = liveLines(f.live.slice(0, shown), f.at, f.snapshot.changed);
  if (lines.length === 0) return undefined;
  return {
    lines,
    short: {
      lines: liveCount(f.live),
      cut: { part: "the live sessions", what: "counted", command: "majordomus session status" },
    },
  };
};

const claims: Write = (f, shown) => {
  const v = f.handover.view;
  if (!v?.claims || v.history) return undefined;
  return {
    lines: claimLines(v.claims, shown),
    short: {
      lines: [claimsSummary(v.claims)],
      cut: { part: "the cited paths", what: "summarised", command: "majordomus handover --claims" },
    },
  };
};

const footer: Write = () => ({
  lines: [
    "",
    "Run `majordomus context` for the whole picture, and `majordomus check` before claiming anything is done.",
  ],
});

/** The parts in print order. `worth`: lowest gets its long form back first; `shown`: items its long form names. */
export const BRIEFING_PARTS: ReadonlyArray<{
  id: string;
  worth?: number;
  shown: number;
  write: Write;
  required?: boolean;
}> = [
  { id: "header", shown: 0, write: header, required: true },
  { id: "own", worth: 7, shown: 0, write: own },
  { id: "stopped", worth: 2, shown: 0, write: stopped },
  { id: "live", worth: 2, shown: 5, write: live },
  { id: "task", worth: 3, shown: 3, write: task },
  { id: "questions", worth: 4, shown: 5, write: questions },
  { id: "handover", worth: 1, shown: 0, write: handover, required: true },
  { id: "acted", worth: 0, shown: 0, write: acted },
  { id: "since", worth: 6, shown: 0, write: since },
  { id: "claims", worth: 5, shown: 8, write: claims },
  { id: "footer", worth: 8, shown: 0, write: footer },
];

export function briefingParts(f: Facts): { parts: Part[]; quote?: Quote; second?: Quote; order: string[] } {
  // Measured as the client receives it: control characters shown as `\uXXXX`.
  const clean = (lines: readonly string[]) => lines.map(printable);
  const parts = BRIEFING_PARTS.flatMap((row) => {
    const part = row.write(f, row.shown);
    if (!part) return [];
    const short = part.short && { ...part.short, lines: clean(part.short.lines) };
    return [
      {
        id: row.id,
        lines: clean(part.lines),
        ...(short ? { short } : {}),
        ...(row.required ? { required: true } : {}),
      },
    ];
  });
  const order = BRIEFING_PARTS.filter((r) => r.worth !== undefined)
    .sort((a, b) => a.worth! - b.worth!)
    .map((r) => r.id);
  return {
    parts,
    quote: nextActionQuote(f.handover.view, f.handover.acted, "handover"),
    second: accountQuote(f.handover.view, "handover"),
    order,
  };
}

/** Fitted to the policy's line budget and, when given, the channel's characters. */
export function briefing(f: Facts, budget?: Budget): Briefing {
  const { parts, quote, second, order } = briefingParts(f);
  return spend(parts, quote, {
    order,
    ...(second ? { second } : {}),
    leaveOut: true,
    maxLines: requireNumber(f.policy, "session.briefing_budget_lines"),
    linesKey: "session.briefing_budget_lines",
    budget,
    closing,
    cutAtEnd,
  });
}
