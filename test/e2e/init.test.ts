// `majordomus init` through the compiled binary, in real repositories.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";
import { Repo, scratch, sh } from "../support/repo.ts";
import { BIN } from "../support/env.ts";

const LAYER_FILES = [
  ".ai/manifest.yaml",
  ".ai/README.md",
  ".ai/repo/README.md",
  ".ai/repo/policy.yaml",
  ".ai/repo/sessions/README.md",
  ".ai/repo/sessions/shared/README.md",
  ".ai/local/README.md",
  ".ai/local/state/README.md",
  ".ai/local/state/open-questions.md",
  ".ai/local/state/decisions.md",
  ".ai/local/state/handovers/README.md",
  ".ai/local/state/checkpoints/README.md",
  ".ai/local/prompts/README.md",
  ".ai/local/session-contexts/README.md",
  ".ai/local/cache/README.md",
];

const mode = (path: string) => statSync(path).mode & 0o777;

describe("majordomus init", () => {
  test("creates the layer, private local half, ignore line and a ledger line", () => {
    using repo = Repo.init();
    repo.commit("start");
    const run = repo.mj(["init"]);
    expect(run.status).toBe(0);
    for (const file of LAYER_FILES) expect(existsSync(repo.path(file))).toBe(true);
    expect(readFileSync(repo.path(".ai/repo/policy.yaml"), "utf8")).toBe(
      readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8"),
    );
    for (const dir of [
      ".ai/local",
      ".ai/local/state",
      ".ai/local/state/handovers",
      ".ai/local/state/checkpoints",
      ".ai/local/prompts",
      ".ai/local/session-contexts",
      ".ai/local/cache",
    ]) {
      expect(mode(repo.path(dir))).toBe(0o700);
    }
    expect(mode(repo.path(".ai/local/state/open-questions.md"))).toBe(0o600);
    expect(readFileSync(repo.path(".gitignore"), "utf8")).toContain(".ai/local/\n");
    // git agrees: nothing under the local half would be committed, the tracked half would.
    const status = repo.git("status", "--porcelain", "--untracked-files=all");
    expect(status).not.toContain(".ai/local");
    expect(status).toContain(".ai/repo/policy.yaml");
    const ledger = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8").trim().split("\n");
    expect(ledger.length).toBe(1);
    expect(JSON.parse(ledger[0]!)).toMatchObject({
      event: "layer.initialized",
      mode: "init",
      created: LAYER_FILES.length,
      branch: "main",
    });
    expect(run.stdout).toContain("created  .ai/manifest.yaml");
  });

  test("a second init refuses with 15 and changes nothing", () => {
    using repo = Repo.init();
    expect(repo.mj(["init"]).status).toBe(0);
    const before = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8");
    const again = repo.mj(["init"]);
    expect(again.status).toBe(15);
    expect(again.stderr).toContain("already exists");
    expect(again.stderr).toContain("init --extend");
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).toBe(before);
    expect(again.stderr).not.toContain("not a majordomus layer");
  });

  test("an .ai folder another tool keeps is named as not a layer; --extend adds the layer beside its files, touching none", () => {
    using repo = Repo.init();
    mkdirSync(repo.path(".ai"));
    writeFileSync(repo.path(".ai/prompts.md"), "mine\n");
    const refused = repo.mj(["init"]);
    expect(refused.status).toBe(15);
    expect(refused.stderr).toContain("already exists and is not a majordomus layer (it holds no manifest.yaml)");
    expect(existsSync(repo.path(".ai/manifest.yaml"))).toBe(false);
    expect(repo.mj(["init", "--extend"]).status).toBe(0);
    expect(readFileSync(repo.path(".ai/prompts.md"), "utf8")).toBe("mine\n");
    expect(existsSync(repo.path(".ai/manifest.yaml"))).toBe(true);
  });

  test("--extend adds only what is missing and never overwrites", () => {
    using repo = Repo.init();
    expect(repo.mj(["init"]).status).toBe(0);
    const policy = repo.path(".ai/repo/policy.yaml");
    const edited = readFileSync(policy, "utf8").replace("briefing_budget_lines: 60", "briefing_budget_lines: 42");
    writeFileSync(policy, edited);
    rmSync(repo.path(".ai/local/state/decisions.md"));
    rmSync(repo.path(".ai/local/cache"), { recursive: true });
    const gitignore = readFileSync(repo.path(".gitignore"), "utf8");
    const run = repo.mj(["init", "--extend", "--json"]);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.mode).toBe("extend");
    expect(result.created.sort()).toEqual([".ai/local/cache/README.md", ".ai/local/state/decisions.md"]);
    expect(readFileSync(policy, "utf8")).toBe(edited);
    expect(readFileSync(repo.path(".gitignore"), "utf8")).toBe(gitignore);
    expect(mode(repo.path(".ai/local/cache"))).toBe(0o700);
  });

  test("keeps an existing .gitignore byte for byte and appends one line", () => {
    using repo = Repo.init();
    writeFileSync(repo.path(".gitignore"), "node_modules\n*.log"); // no trailing newline
    expect(repo.mj(["init"]).status).toBe(0);
    expect(readFileSync(repo.path(".gitignore"), "utf8")).toStartWith("node_modules\n*.log\n");
    expect(readFileSync(repo.path(".gitignore"), "utf8")).toEndWith("\n.ai/local/\n");
  });

  test("an existing ignore line is recognised, not added twice", () => {
    using repo = Repo.init();
    writeFileSync(repo.path(".gitignore"), "/.ai/local\n");
    const run = repo.mj(["init"]);
    expect(run.status).toBe(0);
    expect(readFileSync(repo.path(".gitignore"), "utf8")).toBe("/.ai/local\n");
  });

  test("works in a linked worktree, with its own local half", () => {
    using repo = Repo.init();
    repo.commit("start");
    const wt = join(scratch(), "wt");
    repo.git("worktree", "add", "-q", "-b", "side", wt);
    const run = sh(wt, BIN, ["init"]);
    expect(run.status).toBe(0);
    expect(existsSync(join(wt, ".ai/manifest.yaml"))).toBe(true);
    expect(existsSync(repo.path(".ai"))).toBe(false);
    const line = JSON.parse(readFileSync(join(wt, ".ai/local/state/ledger.jsonl"), "utf8").trim());
    expect(line.branch).toBe("side");
  });

  test("works from a subdirectory: the layer goes to the worktree root", () => {
    using repo = Repo.init();
    sh(repo.dir, "mkdir", ["-p", "a/b"]);
    expect(repo.mj(["init"], { cwd: repo.path("a/b") }).status).toBe(0);
    expect(existsSync(repo.path(".ai/manifest.yaml"))).toBe(true);
  });

  test("outside git it exits 2 and says so", () => {
    const dir = scratch();
    const run = sh(dir, BIN, ["init"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("not inside a git work tree");
    expect(existsSync(join(dir, ".ai"))).toBe(false);
  });
});
