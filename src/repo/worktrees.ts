/**
 * The other worktrees of this repository, read from git's own bookkeeping
 * (`<common dir>/worktrees/*​/gitdir`) rather than by running `git worktree list`.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Position } from "./where.ts";

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Roots of every worktree of the repository except `position`'s own, that still exist. */
export function otherWorktrees(position: Pick<Position, "commonDir" | "worktree">): string[] {
  const roots = new Set<string>();
  if (basename(position.commonDir) === ".git") {
    const main = real(dirname(position.commonDir));
    if (main) roots.add(main);
  }
  let names: string[] = [];
  try {
    names = readdirSync(join(position.commonDir, "worktrees"));
  } catch {
    names = [];
  }
  for (const name of names) {
    try {
      const dotGit = readFileSync(join(position.commonDir, "worktrees", name, "gitdir"), "utf8").trim();
      const root = real(dirname(dotGit));
      if (root && statSync(root).isDirectory()) roots.add(root);
    } catch {
      // a pruned or broken worktree entry: nothing to read there
    }
  }
  roots.delete(position.worktree);
  return [...roots].sort();
}
