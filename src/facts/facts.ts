/**
 * The facts of one command, gathered once: git now, the task, the questions and decisions, the
 * ledger window the task or episode spans, and the resolved handover and checkpoint with both
 * labels. Every text majordomus writes (briefing, context, derived checkpoint and handover) is a
 * pure view over one Facts value (src/views/), so the same account is told everywhere, and each
 * view can be tested over facts built by hand, without git or a binary.
 *
 * A command names what it needs: a fact it does not need is not gathered (the start hook pays
 * for the briefing's facts only).
 */
import type { Decision } from "../decisions/store.ts";
import type { EpisodeWindow } from "./episode.ts";
import type { Entry } from "../ledger/line.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import type { Questions } from "../questions/store.ts";
import type { Divergence } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import type { Position } from "../repo/where.ts";
import type { Snapshot } from "../repo/status.ts";
import type { Task } from "../task/record.ts";
import type { Live } from "./live.ts";

/** A resolved record as the views show it, or why there is none to show. */
export type RecordFact = {
  /** The record to resume from, with both labels and its age. */
  view?: View;
  /** A newer derived record the resolver did not put in its place (the selected one is authored). */
  since?: View;
  /** Malformed records skipped on the way. */
  skipped: number;
  /** The records could not be read at all. */
  error?: string;
};

export type Facts = {
  /** The command's one instant. */
  at: Date;
  position: Position;
  policy: LoadedPolicy;
  /** The episode the text is for (the briefing names it), when one is open. */
  episode?: { session_id: string; kept: boolean };
  snapshot: Snapshot;
  task?: Task;
  /** Why the task record could not be read (then there is no task). */
  taskProblem?: string;
  /** The handover that closed the last task (`handover --close`), while no task has started since. */
  closedBy?: { task_id: string; created_at: string };
  /** With a task: where it started, how that commit sits against git now, and what changed since. */
  sinceTask?: { start: string; label: Divergence; commits: string[] };
  /** Files changed since the task started (committed or not), or in the working tree without a task. */
  files: string[];
  questions: Questions;
  decisions: Decision[];
  /** Ledger lines since the task started, newest first (empty without a task). */
  entries: Entry[];
  /** The newest ledger lines, newest first. */
  history: Entry[];
  handover: RecordFact;
  checkpoint: RecordFact;
  /** The window of the episode being closed (its ledger lines, git since it opened), when asked for. */
  window?: EpisodeWindow;
  /** Other sessions live in this checkout (or in another worktree whose task scope overlaps), when asked for (facts/live.ts). */
  live: Live[];
  /** The files of the local half git tracks (repository-relative): a checkout can replace them, so none is believed. */
  untrusted: Untrusted;
};

export type Untrusted = { dir: string; files: readonly string[] };

/**
 * What a view may ask for beyond the always-gathered facts (position, policy, git status, task,
 * questions). `claims`: the handover's and checkpoint's citations checked against the tree now
 * (git, the cited files), for a view that shows them.
 */
export type Need =
  "handover" | "checkpoint" | "claims" | "since_task" | "decisions" | "entries" | "history" | "window" | "live";

/** What a derived record is composed from: a record never shows a check of citations, nor the sessions live beside it. */
export type RecordNeed = Exclude<Need, "claims" | "live">;
