/**
 * Which repository, worktree, branch and commit a command runs in. Branch and head are read from git's own files,
 * since spawning git costs more than the rest of a hook; anything this reader does not understand (GIT_DIR, reftable)
 * asks git.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Failure } from "../lib/failure.ts";
import { answersFor, git, gitLine, type Answers } from "./git.ts";
import { repositoryIdentity } from "./identity.ts";
import { env } from "../lib/env.ts";
import { redactShapes, type Clean } from "../lib/redact.ts";

export const DETACHED = "DETACHED";
export const NO_HEAD = "NONE";

export type Position = {
  /** A random id in git's common dir: shared by worktrees, kept across moves, new in a fresh clone. */
  repositoryId: string;
  /** Other ids its records may carry (older ones name the common dir's path). */
  repositoryAliases: string[];
  commonDir: string;
  worktree: string;
  gitDir: string;
  /** Short branch name as shown, redacted (`fix/[redacted:github-token]`), or DETACHED; git is handed `ref`. */
  branch: Clean;
  ref?: string;
  head: string;
  git: Answers;
};

export type WorkingTree = "clean" | "dirty" | "unknown";

function readText(path: string): string | undefined {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

type Dirs = { worktree: string; gitDir: string; commonDir: string };

function findDirs(start: string): Dirs | undefined {
  let dir = real(start);
  for (;;) {
    const dotGit = join(dir, ".git");
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory() && existsSync(join(dotGit, "HEAD"))) {
      return { worktree: dir, gitDir: dotGit, commonDir: dotGit };
    }
    if (stat?.isFile()) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "")?.[1];
      if (!pointer) return undefined;
      const gitDir = real(isAbsolute(pointer) ? pointer : join(dir, pointer));
      const common = readText(join(gitDir, "commondir"))?.trim();
      const commonDir = common ? real(isAbsolute(common) ? common : join(gitDir, common)) : gitDir;
      return { worktree: dir, gitDir, commonDir };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The only thing from a record ever handed to git as a revision. */
export const isCommitId = (text: string): boolean => SHA.test(text);

function packedRef(commonDir: string, ref: string): string | undefined {
  const packed = readText(join(commonDir, "packed-refs"));
  if (!packed) return undefined;
  for (const line of packed.split("\n")) {
    if (line.endsWith(` ${ref}`)) {
      const sha = line.slice(0, line.indexOf(" "));
      if (SHA.test(sha)) return sha;
    }
  }
  return undefined;
}

function headFromFiles(dirs: Dirs): { branch: string; head: string } | undefined {
  if (existsSync(join(dirs.commonDir, "reftable"))) return undefined;
  const headText = readText(join(dirs.gitDir, "HEAD"))?.trim();
  if (!headText) return undefined;
  if (SHA.test(headText)) return { branch: DETACHED, head: headText };
  const ref = /^ref:\s*(refs\/heads\/.+)$/.exec(headText)?.[1];
  if (!ref) return undefined;
  const branch = ref.slice("refs/heads/".length);
  const loose = readText(join(dirs.commonDir, ref))?.trim();
  if (loose !== undefined) return SHA.test(loose) ? { branch, head: loose } : undefined;
  return { branch, head: packedRef(dirs.commonDir, ref) ?? NO_HEAD };
}

async function headFromGit(worktree: string): Promise<{ branch: string; head: string }> {
  const branch = (await gitLine(worktree, ["symbolic-ref", "--quiet", "--short", "HEAD"])) ?? DETACHED;
  const head = (await gitLine(worktree, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])) ?? NO_HEAD;
  return { branch, head };
}

async function dirsFromGit(cwd: string): Promise<Dirs | undefined> {
  const out = await git(cwd, [
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-dir",
    "--git-common-dir",
  ]);
  if (!out.ok) return undefined;
  const [worktree, gitDir, commonDir] = out.stdout.trim().split("\n");
  if (!worktree || !gitDir || !commonDir) return undefined;
  return { worktree: real(worktree), gitDir: real(gitDir), commonDir: real(commonDir) };
}

export async function locate(cwd: string = process.cwd()): Promise<Position> {
  const overridden = env("GIT_DIR") !== undefined || env("GIT_WORK_TREE") !== undefined;
  const dirs = overridden ? await dirsFromGit(cwd) : findDirs(cwd);
  if (!dirs) {
    throw new Failure(
      "usage",
      `not inside a git work tree: ${cwd}`,
      "run majordomus from inside a git repository (`git init` makes one)",
    );
  }
  const state = (!overridden && headFromFiles(dirs)) || (await headFromGit(dirs.worktree));
  const identity = repositoryIdentity(dirs.commonDir);
  return {
    repositoryId: identity.id,
    repositoryAliases: identity.aliases,
    commonDir: dirs.commonDir,
    worktree: dirs.worktree,
    gitDir: dirs.gitDir,
    // A branch is named by whoever made it: redacted here, once, for every surface.
    branch: redactShapes(state.branch),
    ...(state.branch === DETACHED ? {} : { ref: `refs/heads/${state.branch}` }),
    head: state.head,
    git: answersFor(dirs.worktree),
  };
}

export function sameRepository(
  repositoryId: string,
  position: Pick<Position, "repositoryId" | "repositoryAliases">,
): boolean {
  return repositoryId === position.repositoryId || position.repositoryAliases.includes(repositoryId);
}

/** Whether something in this local half was written at this worktree's path, or by this repository before it moved. */
export function sameCheckout(
  recorded: { worktree: string; repository_id: string },
  position: Pick<Position, "worktree" | "repositoryId" | "repositoryAliases">,
): boolean {
  return recorded.worktree === position.worktree || sameRepository(recorded.repository_id, position);
}
