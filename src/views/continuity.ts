/**
 * The continuity account as the read side serves it (MCP, the HTTP API, the page): a pure view over
 * the same facts the briefing is written from, plus the episodes the read side lists. Both labels
 * side by side with the age, the Next Action quoted only where the briefing would quote it (a stale
 * or invalid record is history: its Next Action is withheld, with the reason), and absence stated.
 */
import { isoStamp } from "../lib/clock.ts";
import type { Facts, RecordFact } from "../facts/facts.ts";
import { ago } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import type { ClaimsCheck } from "../records/claims.ts";
import { newestOpenFirst, type OpenEpisode } from "../session/store.ts";
import { PAGE } from "../lib/page.ts";
import { headThatFits } from "../lib/fit.ts";
import { showCommand } from "./common.ts";

export type ClosedSummary = {
  session_id: string;
  path: string;
  outcome: string;
  closed_at: string;
  branch: string;
  provider: string;
  provider_session: string;
};

/** What the read side adds to the facts: the episodes of this checkout. */
export type ContinuityFacts = { facts: Facts; open: OpenEpisode[]; closed: ClosedSummary[]; openProblems: string[] };

export type RecordSummary = {
  path: string;
  how: string;
  match: string;
  /** `<divergence> · <freshness>`, as the CLI and the page show them. */
  labels: string;
  divergence: string;
  divergence_meaning: string;
  freshness: string;
  freshness_reason: string;
  created_at: string;
  age: string | null;
  task_id: string;
  episode: string | null;
  /** The Next Action, verbatim, when it may be followed; null when withheld or absent. Cut between lines past NEXT_ACTION_CHARS. */
  next_action: string | null;
  next_action_withheld: string | null;
  /** When the Next Action was cut to fit the answer: the lines quoted, the lines in all, and the command that prints the record. */
  next_action_cut: { shown_lines: number; total_lines: number; command: string } | null;
  /** What its text cites, each labelled against the tree now (changed and deleted first); null when it cites nothing. */
  claims: ClaimsCheck | null;
  /** Its episode is another session still at work in this checkout: its own account of work going on, not a previous session's. */
  live_author: { session_id: string; provider: string; last_seen: string } | null;
  /** A handover another checkout shared through git: its author (git's user.name), that checkout's opaque id, when it was shared. */
  shared_by: { author: string; checkout: string; shared_at: string } | null;
};

/**
 * The longest Next Action each record of the answer quotes, in characters: Claude Code shows a
 * tool result over 20,000 characters as a preview, and the answer quotes up to three records
 * (the handover gets the most room).
 */
export const NEXT_ACTION_CHARS = { handover: 9_000, other: 3_000 } as const;

function summary(v: View, room: number): RecordSummary {
  const lines = !v.history && v.next_action ? v.next_action : undefined;
  const whole = lines?.join("\n");
  const command = showCommand(v);
  const head = lines && whole!.length > room ? headThatFits(lines, room, "utf16") : undefined;
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
    next_action: head ? head.shown.join("\n") : (whole ?? null),
    next_action_withheld: v.next_action_withheld ?? null,
    next_action_cut: head ? { shown_lines: head.kept, total_lines: lines!.length, command } : null,
    claims: v.claims ?? null,
    live_author: v.live_author ?? null,
    shared_by: v.shared ?? null,
  };
}

const absence = (fact: RecordFact, noun: string) =>
  fact.error ?? `no ${noun} for this worktree and branch (records from other branches are never offered)`;

export type Continuity = ReturnType<typeof continuityView>;

/** How many open episodes (the newest) and open questions (the first) the account lists; the rest are counted: crashed clients can leave thousands of episodes open until `recover` runs. */
export const OPEN_LISTED = PAGE;

export function continuityView(c: ContinuityFacts) {
  const f = c.facts;
  const p = f.position;
  const newest = newestOpenFirst(c.open);
  const open = newest.slice(0, OPEN_LISTED).map((e) => ({
    session_id: e.session_id,
    provider: e.provider,
    provider_session: e.provider_session,
    opened_by: e.opened_by,
    opened_at: e.opened_at,
    age: ago(f.at, e.opened_at),
    branch: e.branch,
  }));
  // Numbered as `question resolve` takes them; the first OPEN_LISTED, the rest counted.
  const blockers = f.questions.open
    .slice(0, OPEN_LISTED)
    .map((q, i) => ({ number: i + 1, text: q.text, task_id: q.taskId }));
  const handover = f.handover.view ? summary(f.handover.view, NEXT_ACTION_CHARS.handover) : null;
  const next = [
    ...(handover?.next_action ? ["Follow the handover's Next Action above, after checking it against git."] : []),
    ...(handover?.next_action_cut
      ? [
          `The handover's Next Action was cut to ${handover.next_action_cut.shown_lines} of ${handover.next_action_cut.total_lines} lines to fit this answer: ${handover.next_action_cut.command} prints it whole.`,
        ]
      : []),
    ...(blockers.length > 0 ? [`Resolve the open question(s): majordomus question resolve <n> --answer "…"`] : []),
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
    handover_since: f.handover.since ? summary(f.handover.since, NEXT_ACTION_CHARS.other) : null,
    checkpoint: f.checkpoint.view ? summary(f.checkpoint.view, NEXT_ACTION_CHARS.other) : null,
    checkpoint_absent: f.checkpoint.view ? null : absence(f.checkpoint, "checkpoint"),
    blockers,
    blockers_more: f.questions.open.length - blockers.length,
    closed: c.closed,
    next,
  };
}
