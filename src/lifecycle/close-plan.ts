/**
 * What closing an episode writes, decided from the gathered facts alone (pure: no file, no git, no
 * clock): the derived checkpoint, the continuation record, and the window the closed record is
 * composed from. The commit (finish.ts) writes them in this order. A record the close wrote already
 * (a killed closer's, seen in the episode's window) is not planned again; a record the policy rules
 * out (a required section no derivation writes) is planned as ruled out, with the reason, and the
 * episode still closes.
 *
 * The continuation record quotes the checkpoint written just before it, and the closed record
 * lists both by path; a path is only known once the record is published (its name carries the
 * checkout's next sequence number, drawn under the records lock). So those two parts of the plan
 * are pure functions of what was written.
 */
import { isFailure } from "../lib/failure.ts";
import { switchOn } from "../policy/index.ts";
import type { EpisodeWindow } from "../facts/episode.ts";
import type { Facts } from "../facts/facts.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { viewWith } from "../records/view.ts";
import { deriveCheckpoint, deriveHandover } from "../views/derived.ts";
import { planRecord, requiredSections, type Ground, type PlannedRecord, type Written } from "./records.ts";

/** What a close is planned from: the facts of the episode being closed (with its window) and the ground its records stand on. */
export type CloseFacts = { facts: Facts & { window: EpisodeWindow }; ground: Ground };

/** One record of the plan: to be written, or ruled out by the policy (said, and left out). */
export type Step = { planned: PlannedRecord } | { noun: string; ruledOut: string };

export type ClosePlan = {
  checkpoint?: Step;
  /** The continuation record, given the checkpoint written before it (if any). */
  handover?: (checkpoint: Written | undefined) => Step;
  /**
   * The episode's window as the closed record shows it: with the records written by this close.
   * Undefined when nothing was gathered (the close then reads the window itself).
   */
  window?: (written: readonly Written[]) => EpisodeWindow;
};

/** Whether the window already holds the `event` record a close writes (a killed closer wrote it). */
const writtenByClose = (window: EpisodeWindow, event: string) =>
  window.entries.some((e) => e.event === event && e.closing === true);

function step(noun: string, plan: () => PlannedRecord): Step {
  try {
    return { planned: plan() };
  } catch (err) {
    if (!isFailure(err) || err.kind !== "contract") throw err;
    return { noun, ruledOut: err.message };
  }
}

/** The facts as the continuation record sees them once the checkpoint is written: it is this checkout's newest. */
export function withCheckpoint(facts: Facts, written: Written | undefined): Facts {
  if (!written) return facts;
  // Written by this command at HEAD on this branch: `exact`, as divergence would say without asking git.
  const resolved = { ...written.record, tier: 0 as const, match: "same_worktree_same_branch" as const };
  return {
    ...facts,
    checkpoint: { view: viewWith(resolved, "exact", facts.position, facts.policy.policy, facts.at), skipped: 0 },
  };
}

/** The window with the records this close wrote (their ledger lines were appended after it was read). */
export function windowWith(window: EpisodeWindow, written: readonly Written[]): EpisodeWindow {
  const add = (list: string[], values: string[]) => [...new Set([...list, ...values])];
  const of = (kind: RecordKind) => written.filter((w) => w.kind === kind);
  const checkpoints = of(RECORD_KINDS.checkpoint);
  return {
    ...window,
    tasks: add(
      window.tasks,
      written.map((w) => w.record.meta.task_id).filter((t) => t !== "none"),
    ),
    checkpoints: add(
      window.checkpoints,
      checkpoints.map((w) => w.relativePath),
    ),
    quotes: {
      ...window.quotes,
      ...Object.fromEntries(
        checkpoints.map((w) => [w.relativePath, w.record.body.split("\n").filter((l) => l.trim() !== "")]),
      ),
    },
    handovers: add(
      window.handovers,
      of(RECORD_KINDS.handover).map((w) => w.relativePath),
    ),
  };
}

/** The close's records, from the facts alone; nothing gathered (no policy): nothing is derived and the episode closes as it is. */
export function planClose(input: CloseFacts | undefined): ClosePlan {
  if (!input) return {};
  const { facts, ground } = input;
  const policy = facts.policy;
  const window = facts.window;
  const checkpoint =
    switchOn(policy.policy, "session.checkpoint_on_compact") && !writtenByClose(window, "task.checkpoint")
      ? step("checkpoint", () =>
          planRecord(RECORD_KINDS.checkpoint, deriveCheckpoint(facts), ground, policy, {
            how: "derived",
            closing: true,
          }),
        )
      : undefined;
  // The continuation record attaches to the active task and leaves it active: a task outlives
  // client sessions until `finish` (or `handover --close`) ends it.
  const handover =
    switchOn(policy.policy, "session.handover_on_end") && !writtenByClose(window, "task.handed_over")
      ? (written: Written | undefined) =>
          step("continuation record", () =>
            planRecord(
              RECORD_KINDS.handover,
              deriveHandover(withCheckpoint(facts, written), requiredSections(policy)),
              ground,
              policy,
              { how: "derived", noTask: facts.task === undefined, closing: true },
            ),
          )
      : undefined;
  return { checkpoint, handover, window: (written) => windowWith(window, written) };
}
