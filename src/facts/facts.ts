/**
 * The facts of one command, gathered once. Every text majordomus writes is a pure view over one Facts value
 * (src/views/), so each can be tested over facts built by hand. A command gathers only what it needs.
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
import type { Live, Stopped } from "./live.ts";
import type { Acted } from "../session/closed.ts";

export type RecordFact = {
  view?: View;
  /** A newer derived record beside the selected authored one. */
  since?: View;
  /** A later session that acted on the view's Next Action (its closed record's uptake). */
  acted?: Acted;
  skipped: number;
  error?: string;
};

export type Facts = {
  at: Date;
  position: Position;
  policy: LoadedPolicy;
  /** `stopped`: the episode, resumed, had stopped at its usage limit (facts/live.ts Stopped). */
  episode?: { session_id: string; kept: boolean; stopped?: Pick<Stopped, "stopped_at" | "error" | "checkpoint"> };
  snapshot: Snapshot;
  task?: Task;
  taskProblem?: string;
  closedBy?: { task_id: string; created_at: string };
  sinceTask?: { start: string; label: Divergence; commits: string[] };
  files: string[];
  questions: Questions;
  decisions: Decision[];
  entries: Entry[];
  history: Entry[];
  handover: RecordFact;
  checkpoint: RecordFact;
  window?: EpisodeWindow;
  live: Live[];
  /** Sessions of this checkout stopped at their usage limit, still open (not `live`: not at work). */
  stopped: Stopped[];
  /** Files of the local half git tracks: a checkout can replace them, so none is believed. */
  untrusted: Untrusted;
};

export type Untrusted = { dir: string; files: readonly string[] };

/** What a view may ask for beyond position, policy, git status, task and questions. */
export type Need =
  "handover" | "checkpoint" | "claims" | "since_task" | "decisions" | "entries" | "history" | "window" | "live";

export type RecordNeed = Exclude<Need, "claims" | "live">;
