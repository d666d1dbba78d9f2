// The close names its records before it writes them: two sequence numbers drawn at once, the checkpoint's path
// quoted in the handover written after it, and the closed record listing both, each as it is on disk.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { captured, fire, fixture } from "../support/capture.ts";

const START = fixture("SessionStart-startup.json");
const records = (repo: { path(p: string): string }, dir: string) =>
  readdirSync(repo.path(dir)).filter((f) => f.endsWith(".md") && f !== "README.md");

describe("the close's plan, written", () => {
  test("checkpoint and handover take consecutive numbers, the handover quotes the checkpoint's real path, and the next record draws after both", () => {
    using repo = captured();
    fire(repo, "start", START);
    fire(repo, "prompt", { session_id: START.session_id, prompt_id: "p1", prompt: "hello" });
    fire(repo, "end", { ...fixture("SessionEnd-other.json"), session_id: START.session_id });
    const [checkpoint] = records(repo, ".ai/local/state/checkpoints");
    const [handover] = records(repo, ".ai/local/state/handovers");
    const seq = (name: string) => Number(/--(\d{6})--/.exec(name)![1]);
    expect(seq(handover!)).toBe(seq(checkpoint!) + 1);
    const cited = `.ai/local/state/checkpoints/${checkpoint}`;
    expect(readFileSync(repo.path(`.ai/local/state/handovers/${handover}`), "utf8")).toContain(cited);
    const [closed] = records(repo, ".ai/repo/sessions");
    const record = readFileSync(repo.path(`.ai/repo/sessions/${closed}`), "utf8");
    expect(record).toContain(cited);
    expect(record).toContain(`.ai/local/state/handovers/${handover}`);
    expect(repo.mj(["checkpoint"], { input: "# Progress\nmore\n" }).status).toBe(0);
    const next = records(repo, ".ai/local/state/checkpoints").filter((f) => f !== checkpoint);
    expect(next.map(seq)).toEqual([seq(handover!) + 1]);
  });

  test("a close that writes no record draws no number: the sequence file is never touched", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    const text = readFileSync(policy, "utf8")
      .replace("checkpoint_on_compact: true", "checkpoint_on_compact: false")
      .replace("handover_on_end: true", "handover_on_end: false");
    writeFileSync(policy, text);
    fire(repo, "start", START);
    fire(repo, "end", { ...fixture("SessionEnd-other.json"), session_id: START.session_id });
    expect(records(repo, ".ai/repo/sessions")).toHaveLength(1);
    expect(existsSync(repo.path(".ai/local/state/record-seq"))).toBe(false);
  });
});
