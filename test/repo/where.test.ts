// "Where am I" reads git's files directly for speed; every answer must equal git's own.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { locate } from "../../src/repo/where.ts";
import { snapshot } from "../../src/repo/status.ts";
import { Failure } from "../../src/lib/failure.ts";
import { Repo, scratch } from "../support/repo.ts";

function gitAnswer(repo: Repo, cwd = repo.dir) {
  const run = (args: string[]) => {
    const r = Bun.spawnSync(["git", ...args], { cwd });
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  };
  return {
    repositoryId: realpathSync(run(["rev-parse", "--path-format=absolute", "--git-common-dir"])!),
    worktree: realpathSync(run(["rev-parse", "--show-toplevel"])!),
    branch: run(["symbolic-ref", "--quiet", "--short", "HEAD"]) ?? "DETACHED",
    head: run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]) ?? "NONE",
  };
}

async function ours(cwd: string) {
  const p = await locate(cwd);
  return { repositoryId: p.repositoryId, worktree: p.worktree, branch: p.branch as string, head: p.head };
}

describe("locate agrees with git", () => {
  test("repository with no commits: head NONE", async () => {
    using repo = Repo.init();
    const here = await ours(repo.dir);
    expect(here).toEqual(gitAnswer(repo));
    expect(here.head).toBe("NONE");
    expect(here.branch).toBe("main");
  });

  test("after commits, from a subdirectory", async () => {
    using repo = Repo.init();
    repo.commit("one");
    repo.commit("two");
    mkdirSync(repo.path("deep", "er"), { recursive: true });
    expect(await ours(repo.path("deep", "er"))).toEqual(gitAnswer(repo));
  });

  test("branch names with slashes, and packed refs", async () => {
    using repo = Repo.init();
    repo.commit("one");
    repo.git("switch", "-q", "-c", "feature/x-1");
    repo.commit("two");
    repo.git("pack-refs", "--all", "--prune");
    const here = await ours(repo.dir);
    expect(here).toEqual(gitAnswer(repo));
    expect(here.branch).toBe("feature/x-1");
  });

  test("detached HEAD", async () => {
    using repo = Repo.init();
    const first = repo.commit("one");
    repo.commit("two");
    repo.git("checkout", "-q", "--detach", first);
    const here = await ours(repo.dir);
    expect(here).toEqual(gitAnswer(repo));
    expect(here.branch).toBe("DETACHED");
    expect(here.head).toBe(first);
  });

  test("a linked worktree shares the repository id and has its own worktree and branch", async () => {
    using repo = Repo.init();
    repo.commit("one");
    const other = join(scratch(), "wt");
    repo.git("worktree", "add", "-q", "-b", "side", other);
    const main = await ours(repo.dir);
    const linked = await ours(other);
    expect(linked).toEqual(gitAnswer(repo, other));
    expect(linked.repositoryId).toBe(main.repositoryId);
    expect(linked.worktree).not.toBe(main.worktree);
    expect(linked.branch).toBe("side");
  });

  test("GIT_DIR overrides fall back to asking git", async () => {
    using repo = Repo.init();
    repo.commit("one");
    process.env.GIT_DIR = repo.path(".git");
    process.env.GIT_WORK_TREE = repo.dir;
    try {
      expect(await ours(scratch())).toEqual(gitAnswer(repo));
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_WORK_TREE;
    }
  });

  test("outside any repository: a usage failure saying so", async () => {
    const dir = scratch();
    const err = await locate(dir).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.code).toBe(2);
    expect(err.message).toContain("not inside a git work tree");
  });

  test("working tree is clean, then dirty with an untracked file (a new position asks git again)", async () => {
    using repo = Repo.init();
    repo.commit("one");
    const position = await locate(repo.dir);
    expect((await snapshot(position)).workingTree).toBe("clean");
    Bun.spawnSync(["touch", repo.path("new.txt")]);
    // One position is one command's: it keeps git's first answer; the next command's position sees the change.
    expect((await snapshot(position)).workingTree).toBe("clean");
    expect((await snapshot(await locate(repo.dir))).workingTree).toBe("dirty");
  });
});
