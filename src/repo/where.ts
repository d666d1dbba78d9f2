/**
 * "Where am I": the one place that answers which repository, worktree, branch and commit a
 * command runs in. Every record and ledger line takes its identity from here.
 *
 * Branch and head are read from git's own files (HEAD, loose refs, packed-refs) because a hook
 * runs on every client event and spawning git costs more than the rest of the hook. Anything
 * this reader does not understand (GIT_DIR overrides, the reftable ref store) falls back to
 * asking git, so the answer is always git's.
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
  /**
   * This repository's identity: a random id kept in git's common dir (see identity.ts), so every
   * worktree shares it, a moved or renamed checkout keeps it, and a fresh clone has its own.
   */
  repositoryId: string;
  /** Other ids records of this repository may carry (records written before the id existed name the common dir's path). */
  repositoryAliases: string[];
  /** Absolute path of git's common dir: shared by every worktree of one repository. */
  commonDir: string;
  /** Absolute path of this worktree's root. */
  worktree: string;
  /** This worktree's own git dir (differs from the common dir in a linked worktree). */
  gitDir: string;
  /**
   * Short branch name as every record and answer shows it (a secret in a name is redacted: `fix/[redacted:github-token]`), or DETACHED.
   * git itself is handed `ref`.
   */
  branch: Clean;
  /** The branch's full ref as git names it (`refs/heads/<name>`), for the commands that move it; undefined when detached. */
  ref?: string;
  /** Full commit id of HEAD, or NONE in a repository with no commits. */
  head: string;
  /** git's answers about this checkout, each asked once while this position lives (one command). */
  git: Answers;
};

export type WorkingTree = "clean" | "dirty" | "unknown";

/** A file's text, or undefined when it does not exist (checked first: a thrown ENOENT costs more). */
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

/** Walk up from `start` to the first `.git` (directory, or file naming a linked worktree's git dir). */
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

/** A full commit id (SHA-1 or SHA-256), the only thing from a record that is ever handed to git as a revision. */
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

/** Branch and head from files; undefined when the files are in a form we do not read. */
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

/** Where `cwd` is, or a usage failure saying it is not inside a git work tree. */
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
    // A branch is named by whoever made it: a token in its name is redacted here, once, for every surface.
    branch: redactShapes(state.branch),
    ...(state.branch === DETACHED ? {} : { ref: `refs/heads/${state.branch}` }),
    head: state.head,
    git: answersFor(dirs.worktree),
  };
}

/** Whether a record carrying `repositoryId` belongs to the repository at `position`. */
export function sameRepository(
  repositoryId: string,
  position: Pick<Position, "repositoryId" | "repositoryAliases">,
): boolean {
  return repositoryId === position.repositoryId || position.repositoryAliases.includes(repositoryId);
}

/**
 * Whether something recorded in this checkout's own local half (an open episode, the task) is this
 * checkout's: written at this worktree's path, or by this repository before the checkout moved.
 */
export function sameCheckout(
  recorded: { worktree: string; repository_id: string },
  position: Pick<Position, "worktree" | "repositoryId" | "repositoryAliases">,
): boolean {
  return recorded.worktree === position.worktree || sameRepository(recorded.repository_id, position);
}
