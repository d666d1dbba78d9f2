/**
 * What closing an episode writes, decided from the gathered facts and the sequence numbers drawn for it: the derived
 * checkpoint, the continuation record (which quotes the checkpoint by the path it will have) and the closed record's
 * window. A value: the commit writes it in order and asks the plan nothing. A record a killed closer wrote is not
 * planned again; one the policy rules out is planned as ruled out, and the episode still closes.
 */
import { isFailure } from "../lib/failure.ts";
import { switchOn } from "../policy/index.ts";
import type { EpisodeWindow } from "../facts/episode.ts";
import type { Facts } from "../facts/facts.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { viewWith } from "../records/view.ts";
import { deriveCheckpoint, deriveHandover } from "../views/derived.ts";
import { planRecord, requiredSections, toBeWritten, type Ground, type PlannedRecord, type Written } from "./records.ts";

export type CloseFacts = { facts: Facts & { window: EpisodeWindow }; ground: Ground };

export type Step = { planned: PlannedRecord } | { noun: string; ruledOut: string };

/** Where each record the close writes goes: its folder and the sequence number drawn for it. */
export type Slot = { dir: string; seq: number };
export type Slots = Partial<Record<"checkpoint" | "handover", Slot>>;

export type ClosePlan = {
  checkpoint?: Step;
  handover?: Step;
  /** The window with this close's records; undefined when nothing was gathered. */
  window?: EpisodeWindow;
};

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

export function withCheckpoint(facts: Facts, written: Written | undefined): Facts {
  if (!written) return facts;
  // Written now at HEAD on this branch: `exact`, without asking git.
  const resolved = { ...written.record, tier: 0 as const, match: "same_worktree_same_branch" as const };
  return {
    ...facts,
    checkpoint: { view: viewWith(resolved, "exact", facts.position, facts.policy.policy, facts.at), skipped: 0 },
  };
}

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

/** A planned step with its drawn number, and the record it will be once written. */
/** Which records the close writes: those its switches ask for and a killed closer did not write already. */
export function closeWrites(input: CloseFacts): { checkpoint: boolean; handover: boolean } {
  const { policy, window } = input.facts;
  return {
    checkpoint: switchOn(policy.policy, "session.checkpoint_on_compact") && !writtenByClose(window, "task.checkpoint"),
    handover: switchOn(policy.policy, "session.handover_on_end") && !writtenByClose(window, "task.handed_over"),
  };
}

async function slotted(step: Step | undefined, slot: Slot | undefined, worktree: string) {
  if (!step || !("planned" in step)) return { step, written: undefined };
  if (!slot) throw new Error(`no sequence number was drawn for the closing ${step.planned.kind.noun}`);
  const planned = { ...step.planned, seq: slot.seq };
  return { step: { planned }, written: await toBeWritten(planned, slot.dir, worktree) };
}

/** `slots`: a drawn number for each record `closeWrites` says the close writes. */
export async function planClose(input: CloseFacts | undefined, slots: Slots): Promise<ClosePlan> {
  if (!input) return {};
  const { facts, ground } = input;
  const policy = facts.policy;
  const window = facts.window;
  const worktree = facts.position.worktree;
  const writes = closeWrites(input);
  const checkpoint = await slotted(
    writes.checkpoint
      ? step("checkpoint", () =>
          planRecord(RECORD_KINDS.checkpoint, deriveCheckpoint(facts), ground, policy, {
            how: "derived",
            closing: true,
          }),
        )
      : undefined,
    slots.checkpoint,
    worktree,
  );
  // It leaves the task active: a task outlives sessions until `finish` or `handover --close`.
  const handover = await slotted(
    writes.handover
      ? step("continuation record", () =>
          planRecord(
            RECORD_KINDS.handover,
            deriveHandover(withCheckpoint(facts, checkpoint.written), requiredSections(policy)),
            ground,
            policy,
            { how: "derived", noTask: facts.task === undefined, closing: true },
          ),
        )
      : undefined,
    slots.handover,
    worktree,
  );
  const written = [checkpoint.written, handover.written].filter((w): w is Written => w !== undefined);
  return { checkpoint: checkpoint.step, handover: handover.step, window: windowWith(window, written) };
}
