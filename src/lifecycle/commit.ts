/**
 * Committing a closed session record when the person consented: the record, and the handover this
 * checkout shared for its branch when there is one (records/shared.ts), through git's plumbing (a
 * temporary index, commit-tree, a compare-and-swap update-ref), so no commit hook runs and the
 * person's staged and unstaged work stay as they were. The real index gains the record under git's
 * own index lock, before the branch moves: with the lock held by another git (an editor's, at that
 * moment) nothing is committed, so the branch can never hold a record its index lacks (which the
 * person's next commit would delete).
 */
import { closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { log } from "../lib/log.ts";
import { randomHex } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { git } from "../repo/git.ts";
import { DETACHED, NO_HEAD, type Position } from "../repo/where.ts";

export async function commitRecord(
  ws: Workspace,
  rels: readonly string[],
  episodeId: string,
  push: boolean,
): Promise<string | undefined> {
  const p = ws.position;
  if (p.head === NO_HEAD || p.branch === DETACHED || !p.ref) {
    log.warn(
      `the session record was not committed: ${p.head === NO_HEAD ? "the repository has no commit yet" : "HEAD is detached"}`,
    );
    return undefined;
  }
  const tempIndex = join(p.gitDir, `majordomus-index-${randomHex(4)}`);
  const env = { GIT_INDEX_FILE: tempIndex };
  try {
    const blob = await git(p.worktree, ["hash-object", "-w", "--", ...rels]);
    if (!blob.ok) throw new Error(blob.stderr.trim());
    const entries = blob.stdout
      .trim()
      .split("\n")
      .map((sha, i) => `100644,${sha.trim()},${rels[i]}`);
    const steps: string[][] = [
      ["read-tree", p.head],
      ...entries.map((e) => ["update-index", "--add", "--cacheinfo", e]),
    ];
    for (const step of steps) {
      const r = await git(p.worktree, step, undefined, env);
      if (!r.ok) throw new Error(r.stderr.trim());
    }
    const tree = await git(p.worktree, ["write-tree"], undefined, env);
    if (!tree.ok) throw new Error(tree.stderr.trim());
    const index = await stageInRealIndex(p, entries);
    if (index !== "staged") {
      log.warn(
        `the session record was not committed: ${index}; it stays in the working tree for you to commit (\`git add ${rels.join(" ")}\`)`,
      );
      return undefined;
    }
    const commit = await git(p.worktree, [
      "commit-tree",
      tree.stdout.trim(),
      "-p",
      p.head,
      "-m",
      `chore(session): record ${episodeId}`,
    ]);
    if (!commit.ok) throw new Error(commit.stderr.trim());
    const id = commit.stdout.trim();
    const moved = await git(p.worktree, [
      "update-ref",
      "-m",
      `majordomus: session record ${episodeId}`,
      p.ref,
      id,
      p.head,
    ]);
    // The index already holds the record: a branch that moved leaves it staged, to go with the person's next commit.
    if (!moved.ok) throw new Error(`the branch moved meanwhile: ${moved.stderr.trim()}; the record is staged`);
    if (push) {
      const pushed = await git(p.worktree, ["push", "--quiet", "origin", `${id}:${p.ref}`]);
      if (!pushed.ok)
        log.warn(
          `the session record commit was not pushed: ${pushed.stderr.trim() || "push failed"}; it goes with your next push`,
        );
    }
    return id;
  } catch (err) {
    log.warn(`the session record was not committed: ${(err as Error).message}`);
    return undefined;
  } finally {
    rmSync(tempIndex, { force: true });
  }
}

/**
 * Add `entries` to the worktree's real index as git itself would: take `index.lock` (O_EXCL, git's
 * protocol, so no other git writes the index meanwhile), write the index with the entries there,
 * and rename it into place. Says why not when the lock is held or the index cannot be read.
 */
async function stageInRealIndex(p: Position, entries: readonly string[]): Promise<"staged" | string> {
  const index = join(p.gitDir, "index");
  const lock = `${index}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST")
      return `git's index is locked by another git process (${relative(p.worktree, lock)})`;
    return `git's index could not be locked: ${(err as Error).message}`;
  }
  try {
    try {
      writeFileSync(fd, readFileSync(index));
    } finally {
      closeSync(fd);
    }
    const env = { GIT_INDEX_FILE: lock };
    for (const e of entries) {
      const r = await git(p.worktree, ["update-index", "--add", "--cacheinfo", e], undefined, env);
      if (!r.ok) throw new Error(r.stderr.trim());
    }
    renameSync(lock, index);
    return "staged";
  } catch (err) {
    rmSync(lock, { force: true });
    return `git's index could not be updated: ${(err as Error).message}`;
  }
}

/** Whether git does not track `path` (a file that is only the person's own); a path git cannot judge counts as tracked. */
export async function untracked(
  position: Pick<Position, "worktree" | "git">,
  path: string | undefined,
): Promise<boolean> {
  if (path === undefined) return false;
  const answer = await position.git.once(["ls-files", "--error-unmatch", "--", relative(position.worktree, path)]);
  return answer.status === 1;
}
