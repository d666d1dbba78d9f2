/** Hand-built facts for the pure parts (views, plans): the skeleton's own policy, one instant, one HEAD. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { Facts } from "../../src/facts/facts.ts";
import type { Policy } from "../../src/policy/index.ts";
import type { View } from "../../src/records/view.ts";
import { answersFor } from "../../src/repo/git.ts";
import type { Clean } from "../../src/lib/redact.ts";
import { PROJECT } from "./env.ts";

export const POLICY = parse(readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8")) as Policy;
export const AT = new Date("2026-11-30T12:00:00.000Z");
export const HEAD = "a".repeat(40);

/** A fixture's text that holds no secret, as the gate would pass it (src/ makes a Clean text only through lib/redact.ts). */
export const clean = (text: string) => text as Clean;

export function facts(over: Partial<Facts> = {}): Facts {
  return {
    at: AT,
    position: {
      repositoryId: "r-0123456789abcdef",
      repositoryAliases: [],
      commonDir: "/r/.git",
      worktree: "/r",
      gitDir: "/r/.git",
      branch: clean("main"),
      head: HEAD,
      git: answersFor("/r"),
    },
    policy: { path: "/r/.ai/repo/policy.yaml", policy: POLICY },
    snapshot: { workingTree: "clean", changed: [], ownRecords: [] },
    files: [],
    questions: { path: "/r/.ai/local/state/open-questions.md", open: [], resolved: [], malformed: [] },
    decisions: [],
    entries: [],
    history: [],
    handover: { skipped: 0 },
    checkpoint: { skipped: 0 },
    live: [],
    stopped: [],
    untrusted: { dir: ".ai/local", files: [] },
    ...over,
  };
}

/** A resolved record's view: a fresh authored handover at HEAD, with a Next Action. */
export function record(over: Partial<View> = {}): View {
  const body =
    over.body ??
    "# Objective\nShip it.\n\n# Current State\nHalf.\n\n# Next Action\nRun the parser tests.\n\nThen fix the tokenizer.\n";
  return {
    path: ".ai/local/state/handovers/20261130T115500000Z--000003--main--aaaaaaa.md",
    match: "same_worktree_same_branch",
    tier: 0,
    created_at: "2026-11-30T11:55:00.000Z",
    age: "5m",
    task_id: "none",
    how: "authored",
    session: "s-1",
    head: HEAD,
    divergence: "exact",
    divergence_meaning: "written at this commit",
    freshness: "fresh",
    freshness_reason: "5m old",
    history: false,
    working_tree_then: "clean",
    next_action: ["Run the parser tests.", "", "Then fix the tokenizer."],
    body,
    ...over,
  };
}
