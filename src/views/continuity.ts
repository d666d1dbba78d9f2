/**
 * The continuity account the read side serves (MCP, the API, the page): a pure view over the briefing's facts plus
 * the episodes. Both labels with the age; the Next Action quoted only where the briefing would quote it (a stale
 * record's is withheld, with the reason); absence stated.
 */
import { isoStamp } from "../lib/clock.ts";
import type { Facts, RecordFact } from "../facts/facts.ts";
import { ago } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import type { ClaimsCheck } from "../records/claims.ts";
import { newestOpenFirst, type OpenEpisode } from "../session/store.ts";
import { PAGE } from "../lib/page.ts";
import { largest, outsideFence } from "../lib/fit.ts";
import { isNews } from "../records/claims.ts";
import { actedJson, showCommand } from "./common.ts";

export type ClosedSummary = {
  session_id: string;
  path: string;
  outcome: string;
  closed_at: string;
  branch: string;
  provider: string;
  provider_session: string;
};

export type ContinuityFacts = { facts: Facts; open: OpenEpisode[]; closed: ClosedSummary[]; openProblems: string[] };

export type RecordSummary = {
  path: string;
  how: string;
  match: string;
  labels: string;
  divergence: string;
  divergence_meaning: string;
  freshness: string;
  freshness_reason: string;
  created_at: string;
  age: string | null;
  task_id: string;
  episode: string | null;
  /** Verbatim when it may be followed; null when withheld or absent. */
  next_action: string | null;
  next_action_withheld: string | null;
  next_action_cut: { shown_lines: number; total_lines: number; command: string } | null;
  claims: ClaimsCheck | null;
  /** Another session still at work here wrote it: its account of work going on. */
  live_author: { session_id: string; provider: string; last_seen: string } | null;
  shared_by: { author: string; checkout: string; shared_at: string } | null;
  /** What later sessions did of its Next Action (views/common.ts actedJson). */
  acted_since: ReturnType<typeof actedJson>;
};

/**
 * As sent (pretty-printed JSON): Claude Code previews a tool result over 20,000 characters. The Next Action first,
 * then SPENT_AFTER.
 */
export const CONTINUITY_CHARS = 18_000;

const SPENT_AFTER = ["blockers", "claims", "open", "checkpoint", "since", "closed"] as const;
type Spendable = (typeof SPENT_AFTER)[number];

type Head = { lines: number; chars?: number } | "whole";

function summary(v: View, head: Head, claimsWhole: boolean, acted?: ReturnType<typeof actedJson>): RecordSummary {
  const lines = !v.history && v.next_action ? v.next_action : undefined;
  const part = head === "whole" || !lines ? undefined : head;
  const cut = part !== undefined && (part.lines < lines!.length || part.chars !== undefined);
  const shown = cut
    ? [...lines!.slice(0, part!.lines), ...(part!.chars ? [`${lines![part!.lines]!.slice(0, part!.chars)}…`] : [])]
    : lines;
  return {
    path: v.path,
    how: v.how,
    match: v.match,
    labels: `${v.divergence} · ${v.freshness}`,
    divergence: v.divergence,
    divergence_meaning: v.divergence_meaning,
    freshness: v.freshness,
    freshness_reason: v.freshness_reason,
    created_at: v.created_at,
    age: v.age ?? null,
    task_id: v.task_id,
    episode: v.session === "none" ? null : v.session,
    next_action: shown && shown.length > 0 ? shown.join("\n") : null,
    next_action_withheld: v.next_action_withheld ?? null,
    next_action_cut: cut ? { shown_lines: shown!.length, total_lines: lines!.length, command: showCommand(v) } : null,
    claims: v.claims && !claimsWhole ? shortClaims(v.claims) : (v.claims ?? null),
    live_author: v.live_author ?? null,
    shared_by: v.shared ?? null,
    acted_since: acted ?? null,
  };
}

function shortClaims(check: ClaimsCheck): ClaimsCheck {
  const news = check.labels.filter((l) => isNews(l.state)).slice(0, 3);
  return { ...check, labels: news, omitted: check.labels.length - news.length };
}

const absence = (fact: RecordFact, noun: string) =>
  fact.error ?? `no ${noun} for this worktree and branch (records from other branches are never offered)`;

export type Continuity = ReturnType<typeof continuityView>;

/** Crashed clients can leave thousands of open episodes: the newest are listed, the rest counted. */
export const OPEN_LISTED = PAGE;

export function continuityView(c: ContinuityFacts, chars = CONTINUITY_CHARS) {
  const size = (answer: unknown) => JSON.stringify(answer, null, 2).length;
  const all = new Set<Spendable>(SPENT_AFTER);
  const whole = answerWith(c, "whole", all);
  if (size(whole) <= chars) return whole;
  // The Next Action first: whole if it fits beside every other part at its shortest, else its longest head that does.
  const none = new Set<Spendable>();
  const lines = c.facts.handover.view?.next_action ?? [];
  let head: Head = "whole";
  if (size(answerWith(c, "whole", none)) > chars) {
    const fits = (h: Head) => size(answerWith(c, h, none)) <= chars;
    const n = outsideFence(
      lines,
      largest(lines.length - 1, (k) => fits({ lines: k })),
    );
    const first = lines[0] ?? "";
    head = n > 0 ? { lines: n } : { lines: 0, chars: largest(first.length - 1, (k) => fits({ lines: 0, chars: k })) };
  }
  const long = new Set<Spendable>();
  for (const part of SPENT_AFTER) {
    long.add(part);
    if (size(answerWith(c, head, long)) > chars) long.delete(part);
  }
  return answerWith(c, head, long);
}

function answerWith(c: ContinuityFacts, head: Head, long: ReadonlySet<Spendable>) {
  const f = c.facts;
  const p = f.position;
  const newest = newestOpenFirst(c.open);
  const open = newest.slice(0, long.has("open") ? OPEN_LISTED : 0).map((e) => ({
    session_id: e.session_id,
    provider: e.provider,
    provider_session: e.provider_session,
    opened_by: e.opened_by,
    opened_at: e.opened_at,
    age: ago(f.at, e.opened_at),
    branch: e.branch,
  }));
  const blockers = f.questions.open
    .slice(0, long.has("blockers") ? OPEN_LISTED : 0)
    .map((q, i) => ({ number: i + 1, text: q.text, task_id: q.taskId }));
  const acted = actedJson(f.handover.acted, f.at);
  const handover = f.handover.view ? summary(f.handover.view, head, long.has("claims"), acted) : null;
  const other = (v: View | undefined, part: Spendable) =>
    v ? summary(v, long.has(part) ? "whole" : { lines: 0 }, long.has("claims")) : null;
  const closed = long.has("closed") ? c.closed : [];
  const next = [
    ...(acted ? [acted.said] : []),
    ...(handover?.next_action
      ? [
          acted?.history
            ? "Every step of the handover's Next Action was acted on since: it is what was asked, not the thing to do."
            : "Follow the handover's Next Action above, after checking it against git.",
        ]
      : []),
    ...(handover?.next_action_cut
      ? [
          `The handover's Next Action was cut ` +
            `to ${handover.next_action_cut.shown_lines} of ${handover.next_action_cut.total_lines} lines to ` +
            `fit this answer: ${handover.next_action_cut.command} prints it whole.`,
        ]
      : []),
    ...(f.questions.open.length > 0
      ? [`Resolve the open question(s): majordomus question resolve <n> --answer "…"`]
      : []),
    ...(long.size < SPENT_AFTER.length
      ? [
          `Parts of this answer are counted, not listed, to ` +
            `fit ${CONTINUITY_CHARS.toLocaleString("en-US")} characters: majordomus context --json ` +
            `has them.`,
        ]
      : []),
    "majordomus context",
    "majordomus check",
  ];
  return {
    generated_at: isoStamp(f.at),
    checkout: {
      repository: p.repositoryId,
      worktree: p.worktree,
      branch: p.branch,
      head: p.head,
      working_tree: f.snapshot.workingTree,
      own_records_uncommitted: f.snapshot.ownRecords.length,
    },
    episodes: {
      open,
      open_more: newest.length - open.length,
      open_absent: open.length === 0 ? "no episode is open in this checkout" : null,
      problems: c.openProblems,
    },
    task: f.task
      ? {
          id: f.task.id,
          task: f.task.task,
          scope: f.task.scope,
          started_at: f.task.started_at,
          age: ago(f.at, f.task.started_at),
        }
      : null,
    task_absent: f.task ? null : (f.taskProblem ?? "no active task"),
    handover,
    handover_absent: handover ? null : absence(f.handover, "handover"),
    handover_since: other(f.handover.since, "since"),
    checkpoint: other(f.checkpoint.view, "checkpoint"),
    checkpoint_absent: f.checkpoint.view ? null : absence(f.checkpoint, "checkpoint"),
    blockers,
    blockers_more: f.questions.open.length - blockers.length,
    closed,
    closed_more: c.closed.length - closed.length,
    next,
  };
}
