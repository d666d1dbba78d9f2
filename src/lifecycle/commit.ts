/**
 * Committing a closed record (and this checkout's shared handover) when the person consented, through git's plumbing
 * (temporary index, commit-tree, compare-and-swap update-ref): no commit hook runs and staged work stays. The real
 * index gains the record under git's own lock before the branch moves, so the branch never holds a record its index
 * lacks.
 */
import { closeSync, constants, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { log } from "../lib/log.ts";
import { randomHex } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { git } from "../repo/git.ts";
import { DETACHED, NO_HEAD, type Position } from "../repo/where.ts";

/** HEAD's tree with the records added, written through a temporary index (the person's is not touched). */
async function treeWith(
  p: Position,
  rels: readonly string[],
  tempIndex: string,
): Promise<{ entries: string[]; tree: string }> {
  const env = { GIT_INDEX_FILE: tempIndex };
  const blob = await git(p.worktree, ["hash-object", "-w", "--", ...rels]);
  if (!blob.ok) throw new Error(blob.stderr.trim());
  const entries = blob.stdout
    .trim()
    .split("\n")
    .map((sha, i) => `100644,${sha.trim()},${rels[i]}`);
  const steps: string[][] = [["read-tree", p.head], ...entries.map((e) => ["update-index", "--add", "--cacheinfo", e])];
  for (const step of steps) {
    const r = await git(p.worktree, step, undefined, env);
    if (!r.ok) throw new Error(r.stderr.trim());
  }
  const tree = await git(p.worktree, ["write-tree"], undefined, env);
  if (!tree.ok) throw new Error(tree.stderr.trim());
  return { entries, tree: tree.stdout.trim() };
}

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
  try {
    const { entries, tree } = await treeWith(p, rels, tempIndex);
    const index = await stageInRealIndex(p, entries);
    if (index !== "staged") {
      log.warn(
        `the session record was not committed: ${index}; it stays in the working tree for you to ` +
          `commit (\`git add ${rels.join(" ")}\`)`,
      );
      return undefined;
    }
    const commit = await git(p.worktree, [
      "commit-tree",
      tree,
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
    // The index already holds the record: it goes with the person's next commit.
    if (!moved.ok) throw new Error(`${whyNotMoved(p, moved.stderr)}; the record is staged`);
    if (push) {
      const pushed = await git(p.worktree, ["push", "--quiet", "origin", `${id}:${p.ref}`]);
      if (!pushed.ok)
        log.warn(
          `the session record commit was not pushed: ${pushed.stderr.trim() || "push failed"}; it ` +
            `goes with your next push`,
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

/** Why update-ref refused: another git holding the branch's or HEAD's lock, or the branch moved since it was read. */
function whyNotMoved(p: Position, stderr: string): string {
  const held = [join(p.gitDir, "HEAD.lock"), join(p.commonDir, `${p.ref}.lock`)].find((f) => existsSync(f));
  if (held) return `another git process holds a lock the commit needs (${relative(p.worktree, held)})`;
  return `the branch moved meanwhile: ${stderr.trim()}`;
}

/** Stage in the real index as git does: take `index.lock` (O_EXCL), write, rename into place. */
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

/** A path git cannot judge counts as tracked. */
export async function untracked(
  position: Pick<Position, "worktree" | "git">,
  path: string | undefined,
): Promise<boolean> {
  if (path === undefined) return false;
  const answer = await position.git.once(["ls-files", "--error-unmatch", "--", relative(position.worktree, path)]);
  return answer.status === 1;
}
