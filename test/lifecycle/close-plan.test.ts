/** The close's plan, in process over hand-built facts: what it writes, in which order, and what it leaves out. */
import { describe, expect, test } from "bun:test";
import type { EpisodeWindow } from "../../src/facts/episode.ts";
import type { Entry } from "../../src/ledger/line.ts";
import {
  closeWrites,
  planClose,
  windowWith,
  type CloseFacts,
  type Slots,
  type Step,
} from "../../src/lifecycle/close-plan.ts";
import type { PlannedRecord, Written } from "../../src/lifecycle/records.ts";
import type { Policy } from "../../src/policy/index.ts";
import { RECORD_KINDS } from "../../src/records/kinds.ts";
import type { OpenEpisode } from "../../src/session/store.ts";
import type { Task } from "../../src/task/record.ts";
import { AT, HEAD, POLICY, clean, facts } from "../support/facts.ts";

const EPISODE: OpenEpisode = {
  session_id: "s-20261130T110000Z-ab12",
  opened_at: "2026-11-30T11:00:00.000Z",
  opened_by: "claude-code",
  owner: "dev",
  worker: "claude-code",
  provider: "claude-code",
  provider_session: "c0ffee",
  repository_id: "r-0123456789abcdef",
  worktree: "/r",
  branch: "main",
  start_head: HEAD,
  start_working_tree: "clean",
  task_id: "none",
  context_path: ".ai/local/state/sessions-open/c0ffee.md",
};

const TASK = {
  id: "t-parser",
  title: "Fix the parser",
  profile: "default",
  owner: "dev",
  scope: ["src/parser.ts"],
  branch: "main",
  head: HEAD,
  started_at: "2026-11-30T10:00:00.000Z",
  checkpoint_at: "2026-11-30T10:30:00.000Z",
  outcome: "active",
} as unknown as Task;

function windowOf(entries: Partial<Entry>[] = []): EpisodeWindow {
  return {
    episode: EPISODE,
    entries: entries as Entry[],
    endHead: HEAD,
    commits: [],
    files: [clean("src/parser.ts")],
    tasks: [],
    checkpoints: [],
    handovers: [],
    decisions: [],
    questions: [],
    quotes: {},
  };
}

function input(over: { window?: EpisodeWindow; task?: Task; policy?: Policy } = {}): CloseFacts {
  const window = over.window ?? windowOf();
  const policy = { path: "/r/.ai/repo/policy.yaml", policy: over.policy ?? POLICY };
  const f = facts({ policy, task: over.task, files: ["src/parser.ts"], window });
  return {
    facts: { ...f, window },
    ground: {
      position: f.position,
      episodeId: EPISODE.session_id,
      task: over.task,
      snapshot: { workingTree: "dirty", changed: [clean("src/parser.ts")], ownRecords: [] },
      writtenAt: "2026-11-30T12:00:01.000Z",
    },
  };
}

const planned = (step: Step | undefined): PlannedRecord => {
  if (!step || !("planned" in step)) throw new Error(`expected a record to write, got ${JSON.stringify(step)}`);
  return step.planned;
};

/** The numbers a close draws before it plans: its checkpoint's, then its handover's. */
const SLOTS: Slots = {
  checkpoint: { dir: "/r/.ai/local/state/checkpoints", seq: 7 },
  handover: { dir: "/r/.ai/local/state/handovers", seq: 8 },
};
const CP = ".ai/local/state/checkpoints/20261130T120001000Z--000007--main--aaaaaaa.md";
const HO = ".ai/local/state/handovers/20261130T120001000Z--000008--main--aaaaaaa.md";

describe("the close's plan", () => {
  test("a value: a checkpoint, then a continuation record that quotes it by its drawn name, the window with both", async () => {
    const c = input({ task: TASK });
    const plan = await planClose(c, SLOTS);
    const checkpoint = planned(plan.checkpoint);
    expect(checkpoint.kind).toBe(RECORD_KINDS.checkpoint);
    expect(checkpoint.seq).toBe(7);
    expect(checkpoint.payload).toMatchObject({ task_id: "t-parser", how: "derived", closing: true });
    expect(checkpoint.draft).toMatchObject({
      created_at: "2026-11-30T12:00:01.000Z",
      session: EPISODE.session_id,
      working_tree: "dirty",
      head: HEAD,
    });
    expect(checkpoint.task?.checkpoint_at).toBe("2026-11-30T12:00:01.000Z");
    const handover = planned(plan.handover);
    expect(handover.kind).toBe(RECORD_KINDS.handover);
    expect(handover.seq).toBe(8);
    expect(handover.payload).toMatchObject({ task_id: "t-parser", closing: true, closed: false });
    // It quotes the checkpoint by the path its drawn number gives it.
    expect(handover.body).toContain(`(${CP})`);
    expect(handover.body).toContain("# Next Action");
    // The closed record lists both, and quotes the checkpoint.
    expect(plan.window!.checkpoints).toEqual([CP]);
    expect(plan.window!.handovers).toEqual([HO]);
    expect(plan.window!.tasks).toEqual(["t-parser"]);
    expect(plan.window!.quotes[CP]?.length).toBeGreaterThan(0);
  });

  test("without a task the records name none and the handover says it attaches to no task", async () => {
    const plan = await planClose(input(), SLOTS);
    expect(planned(plan.checkpoint).task).toBeUndefined();
    const handover = planned(plan.handover);
    expect(handover.draft.task_id).toBe("none");
    expect(handover.task).toBeUndefined();
    expect(plan.window!.tasks).toEqual([]);
  });

  test("what a killed closer already wrote (its lines in the window) is not planned again", async () => {
    const window = windowOf([
      { event: "task.checkpoint", closing: true, checkpoint_path: ".ai/local/state/checkpoints/x.md" },
      { event: "task.handed_over", closing: true, handover_path: ".ai/local/state/handovers/y.md" },
    ]);
    const c = input({ window });
    expect(closeWrites(c)).toEqual({ checkpoint: false, handover: false });
    const plan = await planClose(c, {});
    expect(plan.checkpoint).toBeUndefined();
    expect(plan.handover).toBeUndefined();
  });

  test("a checkpoint or handover the session's own (not closing) lines show is written anyway", async () => {
    const c = input({ window: windowOf([{ event: "task.checkpoint", checkpoint_path: "a.md" }]) });
    expect((await planClose(c, SLOTS)).checkpoint).toBeDefined();
  });

  test("the policy's switches leave either record out", async () => {
    const off = { ...POLICY, session: { ...POLICY.session, checkpoint_on_compact: false, handover_on_end: false } };
    const plan = await planClose(input({ policy: off }), SLOTS);
    expect(plan.checkpoint).toBeUndefined();
    expect(plan.handover).toBeUndefined();
    expect(plan.window!.episode.session_id).toBe(EPISODE.session_id);
  });

  test("a record the policy rules out is planned as ruled out, with its reason, and the rest goes on", async () => {
    // No derivation writes a "Risks" section: the continuation record cannot pass this policy.
    const strict = { ...POLICY, handover: { ...POLICY.handover, required_sections: ["Objective", "Risks"] } };
    const plan = await planClose(input({ policy: strict }), SLOTS);
    expect(planned(plan.checkpoint).kind).toBe(RECORD_KINDS.checkpoint);
    const handover = plan.handover;
    expect(handover).toMatchObject({ noun: "continuation record" });
    expect((handover as { ruledOut: string }).ruledOut).toContain("Risks");
  });

  test("a record to write without a drawn number is a bug, never a guessed name", async () => {
    expect(closeWrites(input())).toEqual({ checkpoint: true, handover: true });
    await expect(planClose(input(), { checkpoint: SLOTS.checkpoint })).rejects.toThrow(/closing handover/);
  });

  test("nothing gathered: nothing planned, and the close reads its window itself", async () => {
    expect(await planClose(undefined, SLOTS)).toEqual({});
  });

  test("the window keeps what it listed and adds what was written once", async () => {
    const before = { ...windowOf(), tasks: ["t-1"], checkpoints: ["a.md"], quotes: { "a.md": ["kept"] } };
    const cp = { ...planned((await planClose(input(), SLOTS)).checkpoint), seq: 7 };
    const w: Written = {
      kind: cp.kind,
      relativePath: "b.md",
      task: cp.task,
      record: {
        path: "/r/b.md",
        file: "b.md",
        meta: { ...cp.draft, seq: 7, schema: cp.kind.schema } as never,
        body: cp.body,
      },
    };
    const after = windowWith(before, [w, w]);
    expect(after.checkpoints).toEqual(["a.md", "b.md"]);
    expect(after.quotes["a.md"]).toEqual(["kept"]);
    expect(after.tasks).toEqual(["t-1"]);
    expect(AT.toISOString()).toBe("2026-11-30T12:00:00.000Z");
  });
});
