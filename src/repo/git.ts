/** Running git, where its files are not enough (status, ancestry, logs); hooks read HEAD from disk (where.ts). */
import { spawnText } from "../lib/spawn.ts";
import { environment } from "../lib/env.ts";
import { cancelAll, GAVE_UP } from "../lib/cancel.ts";

export type GitResult = { ok: boolean; status: number | null; stdout: string; stderr: string };

const QUIET = { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_EDITOR: "true", LC_ALL: "C" };

/**
 * No program the repository controls runs for majordomus: no hook (a core.hooksPath into the repository, as husky sets,
 * ran reference-transaction and post-index-change during the consented commit) and no fsmonitor.
 */
export const NO_PROGRAMS = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"] as const;

let deadlineAt: number | undefined;
let missed = false;

/**
 * Every git call of this process ends within `ms`: one running then is stopped, a later one never starts, and each
 * answers as a git that gave up. Returns how to lift the bound (a test replaying events asks git again).
 */
export function stopGitWithin(ms: number): () => void {
  const at = performance.now() + ms;
  deadlineAt = at;
  const timer = setTimeout(cancelAll, ms);
  timer.unref?.();
  return () => {
    clearTimeout(timer);
    if (deadlineAt !== at) return;
    deadlineAt = undefined;
    missed = false;
  };
}

/** Whether a call really gave up at the bound: a bound that passed after every answer leaves the facts whole. */
export function gitStopped(): boolean {
  return missed;
}

export function git(
  cwd: string,
  args: readonly string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<GitResult> {
  if (deadlineAt !== undefined && performance.now() >= deadlineAt) {
    missed = true;
    return Promise.resolve({ ok: false, status: null, stdout: "", stderr: GAVE_UP });
  }
  // Optional locks off: a hook must never take the index lock the person's own git needs.
  return spawnText("git", [...NO_PROGRAMS, ...args], {
    cwd,
    input,
    env: { ...environment(), ...QUIET, GIT_OPTIONAL_LOCKS: "0", ...env },
    group: true,
  }).then((run) => {
    if (run.stderr === GAVE_UP && deadlineAt !== undefined) missed = true;
    return { ok: run.status === 0, ...run };
  });
}

/** git's answers for one command's position, each asked once (~10 ms a process): our writes do not change them. */
export type Answers = {
  once(args: readonly string[]): Promise<GitResult>;
  /** Take the answer from elsewhere (the start shim's); an undefined answer sends the question to git. */
  take(args: readonly string[], answer: Promise<GitResult | undefined>): void;
  known(args: readonly string[]): Promise<GitResult | undefined>;
};

export function answersFor(cwd: string): Answers {
  const asked = new Map<string, Promise<GitResult>>();
  const keep = (key: string, pending: Promise<GitResult>) => {
    asked.set(key, pending);
    // A failure to run git is not kept: the next caller asks again.
    pending.catch(() => asked.get(key) === pending && asked.delete(key));
    return pending;
  };
  return {
    once(args) {
      const key = args.join("\0");
      return asked.get(key) ?? keep(key, git(cwd, args));
    },
    take(args, answer) {
      keep(
        args.join("\0"),
        answer.then((a) => a ?? git(cwd, args)),
      );
    },
    known(args) {
      return asked.get(args.join("\0")) ?? Promise.resolve(undefined);
    },
  };
}

export async function gitLine(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await git(cwd, args);
  if (!result.ok) return undefined;
  const line = result.stdout.split("\n")[0]?.trim();
  return line === "" ? undefined : line;
}
