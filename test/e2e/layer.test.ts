// The manifest and policy are checked on every read; bad ones are refused with every problem named.
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { Repo } from "../support/repo.ts";

function layered(): Repo {
  const repo = Repo.init();
  if (repo.mj(["init"]).status !== 0) throw new Error("init failed");
  return repo;
}

function edit(repo: Repo, file: string, change: (text: string) => string): void {
  const path = repo.path(file);
  writeFileSync(path, change(readFileSync(path, "utf8")));
}

describe("manifest", () => {
  test("an unknown key is refused (10) naming the key", () => {
    using repo = layered();
    edit(repo, ".ai/manifest.yaml", (t) => `${t}extras: true\n`);
    const run = repo.mj(["history"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("manifest.yaml: extras: is not a known key");
  });

  test("a newer schema is refused (10) with the reason", () => {
    using repo = layered();
    edit(repo, ".ai/manifest.yaml", (t) => t.replace("ai-repository/v1", "ai-repository/v2"));
    const run = repo.mj(["history"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("ai-repository/v2 is newer than this majordomus understands");
    expect(run.stderr).toContain("upgrade majordomus");
  });

  test("a section outside its half is refused", () => {
    using repo = layered();
    edit(repo, ".ai/manifest.yaml", (t) => t.replace("state: local/state", "state: ../elsewhere"));
    const run = repo.mj(["history"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("sections.state: must be a relative path inside local/");
  });

  test("a missing manifest (12) says how to restore it; a missing layer (12) says to init", () => {
    using repo = layered();
    rmSync(repo.path(".ai/manifest.yaml"));
    const noManifest = repo.mj(["history"]);
    expect(noManifest.status).toBe(12);
    expect(noManifest.stderr).toContain("init --extend");
    rmSync(repo.path(".ai"), { recursive: true });
    const noLayer = repo.mj(["history"]);
    expect(noLayer.status).toBe(12);
    expect(noLayer.stderr).toContain("no .ai layer");
    expect(noLayer.stderr).toContain("majordomus init");
  });

  test("invalid YAML is reported with the file and position", () => {
    using repo = layered();
    edit(repo, ".ai/manifest.yaml", (t) => `${t}sections: [unclosed\n`);
    const run = repo.mj(["history"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("manifest.yaml: not valid YAML");
    expect(run.stderr).toMatch(/line \d+/);
  });
});

describe("policy", () => {
  test("the skeleton policy is valid and lists its keys", () => {
    using repo = layered();
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("session.freshness.fresh_minutes = 720");
    expect(run.stdout).toContain("session.handover_on_fill = true");
    expect(run.stdout).toContain('handover.required_sections = ["Objective","Current State","Next Action"]');
  });

  test("every problem is reported at once, each with its key path", () => {
    using repo = layered();
    edit(repo, ".ai/repo/policy.yaml", (t) =>
      t
        .replace("briefing_budget_lines: 60", "briefing_budget_lines: sixty")
        .replace("handover_on_fill: true", 'handover_on_fill: "true"')
        .replace("stranded_after: 24h", "stranded_after: soon")
        .replace("max_body_lines: 40", "max_body_lines: 40\n  max_body_bytes: 10"),
    );
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("session.briefing_budget_lines: must be integer");
    expect(run.stderr).toContain("session.handover_on_fill: must be boolean");
    expect(run.stderr).toContain("session.stranded_after: must match");
    expect(run.stderr).toContain("checkpoint.max_body_bytes: is not a known key");
    expect(run.stderr).toContain("4 problem(s)");
  });

  test("freshness thresholds must be ordered", () => {
    using repo = layered();
    edit(repo, ".ai/repo/policy.yaml", (t) => t.replace("fresh_minutes: 720", "fresh_minutes: 3000"));
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("session.freshness: fresh_minutes (3000) must be less than stale_minutes (2880)");
  });

  test("a key written twice is refused by the strict check", () => {
    using repo = layered();
    edit(repo, ".ai/repo/policy.yaml", (t) =>
      t.replace("briefing_on_start: true", "briefing_on_start: true\n  briefing_on_start: false"),
    );
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toMatch(/unique|twice|duplicate/i);
  });

  test("absent keys are allowed: absence is reported by the reader that needs the key", () => {
    using repo = layered();
    edit(repo, ".ai/repo/policy.yaml", (t) => t.replace(/\nledger:\n.*\n.*\n/, "\n"));
    expect(repo.mj(["policy"]).status).toBe(0);
    const rotate = repo.mj(["history", "--rotate"]);
    expect(rotate.status).toBe(12);
    expect(rotate.stderr).toContain("declares no ledger.retention_max_lines");
  });
});
