/** Hand-built facts for the pure parts (views, plans): the skeleton's own policy, one instant, one HEAD. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { Facts } from "../../src/facts/facts.ts";
import type { Policy } from "../../src/policy/index.ts";
import { answersFor } from "../../src/repo/git.ts";
import { PROJECT } from "./env.ts";

export const POLICY = parse(readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8")) as Policy;
export const AT = new Date("2026-11-30T12:00:00.000Z");
export const HEAD = "a".repeat(40);

export function facts(over: Partial<Facts> = {}): Facts {
  return {
    at: AT,
    position: {
      repositoryId: "r-0123456789abcdef",
      repositoryAliases: [],
      commonDir: "/r/.git",
      worktree: "/r",
      gitDir: "/r/.git",
      branch: "main",
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
    ...over,
  };
}
