/** The close's plan, in process over hand-built facts: what it writes, in which order, and what it leaves out. */
import { describe, expect, test } from "bun:test";
import type { EpisodeWindow } from "../../src/facts/episode.ts";
import type { Entry } from "../../src/ledger/line.ts";
import { planClose, windowWith, type CloseFacts, type Step } from "../../src/lifecycle/close-plan.ts";
import type { PlannedRecord, Written } from "../../src/lifecycle/records.ts";
import type { Policy } from "../../src/policy/index.ts";
import { RECORD_KINDS } from "../../src/records/kinds.ts";
import type { OpenEpisode } from "../../src/session/store.ts";
import type { Task } from "../../src/task/record.ts";
import { AT, HEAD, POLICY, facts } from "../support/facts.ts";

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
    files: ["src/parser.ts"],
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
      snapshot: { workingTree: "dirty", changed: ["src/parser.ts"], ownRecords: [] },
      writtenAt: "2026-11-30T12:00:01.000Z",
    },
  };
}

const planned = (step: Step | undefined): PlannedRecord => {
  if (!step || !("planned" in step)) throw new Error(`expected a record to write, got ${JSON.stringify(step)}`);
  return step.planned;
};

/** What the commit would hand back for a planned record, published under `path`. */
function written(p: PlannedRecord, path: string): Written {
  return {
    kind: p.kind,
    relativePath: path,
    task: p.task,
    record: {
      path: `/r/${path}`,
      file: path.split("/").pop()!,
      meta: { ...p.draft, seq: 7, schema: p.kind.schema } as never,
      body: p.body,
    },
  };
}

describe("the close's plan", () => {
  test("a checkpoint, then a continuation record that quotes it, both stamped as the close's, the task's clock moved", () => {
    const c = input({ task: TASK });
    const plan = planClose(c);
    const checkpoint = planned(plan.checkpoint);
    expect(checkpoint.kind).toBe(RECORD_KINDS.checkpoint);
    expect(checkpoint.payload).toMatchObject({ task_id: "t-parser", how: "derived", closing: true });
    expect(checkpoint.draft).toMatchObject({
      created_at: "2026-11-30T12:00:01.000Z",
      session: EPISODE.session_id,
      working_tree: "dirty",
      head: HEAD,
    });
    expect(checkpoint.task?.checkpoint_at).toBe("2026-11-30T12:00:01.000Z");
    const cp = written(checkpoint, ".ai/local/state/checkpoints/20261130T120001000Z--000007--main--aaaaaaa.md");
    const handover = planned(plan.handover?.(cp));
    expect(handover.kind).toBe(RECORD_KINDS.handover);
    expect(handover.payload).toMatchObject({ task_id: "t-parser", closing: true, closed: false });
    // It quotes the checkpoint just written, by the path the commit gave it.
    expect(handover.body).toContain(`(${cp.relativePath})`);
    expect(handover.body).toContain("# Next Action");
    // The closed record lists both, and quotes the checkpoint.
    const hw = written(handover, ".ai/local/state/handovers/20261130T120001000Z--000008--main--aaaaaaa.md");
    const window = plan.window!([cp, hw]);
    expect(window.checkpoints).toEqual([cp.relativePath]);
    expect(window.handovers).toEqual([hw.relativePath]);
    expect(window.tasks).toEqual(["t-parser"]);
    expect(window.quotes[cp.relativePath]?.length).toBeGreaterThan(0);
  });

  test("without a task the records name none and the handover says it attaches to no task", () => {
    const c = input();
    const plan = planClose(c);
    expect(planned(plan.checkpoint).task).toBeUndefined();
    const handover = planned(plan.handover?.(undefined));
    expect(handover.draft.task_id).toBe("none");
    expect(handover.task).toBeUndefined();
    expect(plan.window!([]).tasks).toEqual([]);
  });

  test("what a killed closer already wrote (its lines in the window) is not planned again", () => {
    const window = windowOf([
      { event: "task.checkpoint", closing: true, checkpoint_path: ".ai/local/state/checkpoints/x.md" },
      { event: "task.handed_over", closing: true, handover_path: ".ai/local/state/handovers/y.md" },
    ]);
    const c = input({ window });
    const plan = planClose(c);
    expect(plan.checkpoint).toBeUndefined();
    expect(plan.handover).toBeUndefined();
  });

  test("a checkpoint or handover the session's own (not closing) lines show is written anyway", () => {
    const c = input({ window: windowOf([{ event: "task.checkpoint", checkpoint_path: "a.md" }]) });
    expect(planClose(c).checkpoint).toBeDefined();
  });

  test("the policy's switches leave either record out", () => {
    const off = { ...POLICY, session: { ...POLICY.session, checkpoint_on_compact: false, handover_on_end: false } };
    const c = input({ policy: off });
    const plan = planClose(c);
    expect(plan.checkpoint).toBeUndefined();
    expect(plan.handover).toBeUndefined();
    expect(plan.window!([]).episode.session_id).toBe(EPISODE.session_id);
  });

  test("a record the policy rules out is planned as ruled out, with its reason, and the rest goes on", () => {
    // No derivation writes a "Risks" section: the continuation record cannot pass this policy.
    const strict = { ...POLICY, handover: { ...POLICY.handover, required_sections: ["Objective", "Risks"] } };
    const c = input({ policy: strict });
    const plan = planClose(c);
    expect(planned(plan.checkpoint).kind).toBe(RECORD_KINDS.checkpoint);
    const handover = plan.handover?.(undefined);
    expect(handover).toMatchObject({ noun: "continuation record" });
    expect((handover as { ruledOut: string }).ruledOut).toContain("Risks");
  });

  test("nothing gathered: nothing planned, and the close reads its window itself", () => {
    expect(planClose(undefined)).toEqual({});
  });

  test("the window keeps what it listed and adds what was written once", () => {
    const before = { ...windowOf(), tasks: ["t-1"], checkpoints: ["a.md"], quotes: { "a.md": ["kept"] } };
    const c = input();
    const cp = written(planned(planClose(c).checkpoint), "b.md");
    const after = windowWith(before, [cp, cp]);
    expect(after.checkpoints).toEqual(["a.md", "b.md"]);
    expect(after.quotes["a.md"]).toEqual(["kept"]);
    expect(after.tasks).toEqual(["t-1"]);
    expect(AT.toISOString()).toBe("2026-11-30T12:00:00.000Z");
  });
});
