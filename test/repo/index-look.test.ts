// The look at git's index stands in for `git ls-files` only where it can prove the answer: every
// case here is checked against git itself, and every doubt must fall back to asking git.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { indexMayHold } from "../../src/repo/index-look.ts";
import { trackedUnder } from "../../src/repo/tracked.ts";
import { Repo } from "../support/repo.ts";

const LOCAL = ".ai/local";

function withFiles(repo: Repo, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(repo.dir, rel, ".."), { recursive: true });
    writeFileSync(join(repo.dir, rel), text);
  }
}

async function agrees(repo: Repo): Promise<boolean> {
  const gitDir = join(repo.dir, ".git");
  const asked = await trackedUnder(repo.dir, join(repo.dir, LOCAL));
  const looked = await trackedUnder(repo.dir, join(repo.dir, LOCAL), undefined, gitDir);
  expect([...looked.files].sort()).toEqual([...asked.files].sort());
  return indexMayHold(gitDir, LOCAL);
}

describe("the index look", () => {
  test("nothing under the local half tracked: proven from the index, the same answer as git's", async () => {
    using repo = Repo.init();
    withFiles(repo, { ".gitignore": ".ai/local/\n", ".ai/repo/policy.yaml": "x\n", ".ai/local/state/x": "y\n" });
    repo.git("add", ".");
    repo.git("commit", "-qm", "base");
    expect(await agrees(repo)).toBe(false);
  });

  test("no index yet (a new repository): nothing tracked", async () => {
    using repo = Repo.init();
    expect(await agrees(repo)).toBe(false);
  });

  test("a force-added file there, committed or only staged: git is asked, and names it", async () => {
    using repo = Repo.init();
    withFiles(repo, { ".gitignore": ".ai/local/\n", ".ai/local/state/current.yaml": "planted\n" });
    repo.git("add", ".gitignore");
    repo.git("add", "-f", ".ai/local/state/current.yaml");
    expect(await agrees(repo)).toBe(true);
    repo.git("commit", "-qm", "planted");
    expect(await agrees(repo)).toBe(true);
  });

  test("a path that only begins like it (.ai/localx): a doubt, so git is asked", async () => {
    using repo = Repo.init();
    withFiles(repo, { ".ai/localx/a": "a\n" });
    repo.git("add", ".");
    expect(await agrees(repo)).toBe(true);
  });

  test("index version 4, a split index, an index that is not one: git is asked", async () => {
    using repo = Repo.init();
    withFiles(repo, { "a.txt": "a\n", ".ai/repo/p": "p\n" });
    repo.git("add", ".");
    repo.git("update-index", "--index-version", "4");
    expect(await agrees(repo)).toBe(true);
    repo.git("update-index", "--index-version", "2");
    expect(await agrees(repo)).toBe(false);
    repo.git("update-index", "--split-index");
    expect(await agrees(repo)).toBe(true);
    repo.git("update-index", "--no-split-index");
    repo.git("gc", "-q");
    expect(indexMayHold(join(repo.dir, ".git"), LOCAL)).toBe(
      Bun.spawnSync(["sh", "-c", "ls .git | grep -q sharedindex"], { cwd: repo.dir }).exitCode === 0,
    );
    writeFileSync(join(repo.dir, ".git", "index"), "not an index at all");
    expect(indexMayHold(join(repo.dir, ".git"), LOCAL)).toBe(true);
  });

  test("a path past the first chunk read is still found", async () => {
    using repo = Repo.init();
    // Enough long names sorted before it ('+' < '.') that the index passes one read's chunk (1 MiB).
    for (let i = 0; i < 4000; i++) withFiles(repo, { [`+d/${"n".repeat(240)}${i}`]: "" });
    withFiles(repo, { ".gitignore": "", ".ai/local/state/x": "y\n" });
    repo.git("add", "-A");
    repo.git("add", "-f", ".ai/local/state/x");
    const index = Bun.file(join(repo.dir, ".git", "index"));
    expect(index.size).toBeGreaterThan(1 << 20);
    expect(Buffer.from(await index.arrayBuffer()).indexOf(".ai/local")).toBeGreaterThan(1 << 20);
    expect(await agrees(repo)).toBe(true);
  });
});
