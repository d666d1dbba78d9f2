/**
 * Running git. Only used where reading git's files is not enough (status, ancestry, logs);
 * the hot path of every hook reads HEAD from disk instead (see where.ts).
 */
import { spawnText } from "../lib/runtime.ts";
import { environment } from "../lib/env.ts";
import { cancelAll, GAVE_UP } from "../lib/cancel.ts";

export type GitResult = { ok: boolean; status: number | null; stdout: string; stderr: string };

/** Never let git open an editor or a pager, ask for credentials, or translate its output. */
const QUIET = { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_EDITOR: "true", LC_ALL: "C" };

/** When git stops being asked (performance.now()): set while a hook whose client kills it at a budget works. */
let deadlineAt: number | undefined;
/** Whether a git call gave up at that bound: then some answer is missing. */
let missed = false;

/**
 * Every git call of this process ends within `ms` from now: one still running then is stopped, and
 * a later one is not started; each answers as a git that gave up (GAVE_UP), which every caller
 * already reads as facts it does not have. Returns how to lift the bound once the work is done (a
 * process that goes on, such as a test replaying events, asks git again after it).
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

/**
 * Whether a git call gave up at the bound stopGitWithin set: some of git's answers are missing, not
 * negative. A bound that passed after every answer came in leaves the facts whole.
 */
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
  // Optional locks off: a hook must never take the index lock a person's own git command needs.
  return spawnText("git", args, {
    cwd,
    input,
    env: { ...environment(), ...QUIET, GIT_OPTIONAL_LOCKS: "0", ...env },
  }).then((run) => {
    if (run.stderr === GAVE_UP && deadlineAt !== undefined) missed = true;
    return { ok: run.status === 0, ...run };
  });
}

/**
 * git's answers about one checkout, for as long as one command's position lives (see where.ts):
 * questions whose answer cannot change meanwhile (majordomus writes only git-ignored files before
 * its last step) are asked once each, and each costs a process (~10 ms here). A server builds a
 * position per answer, so nothing here outlives what it describes.
 */
export type Answers = {
  /** git's answer to `args`, asked at most once through this value. */
  once(args: readonly string[]): Promise<GitResult>;
  /**
   * Take the answer to `args` from elsewhere (the start shim ran `git status` before this process
   * existed); `answer` resolves undefined when there is none, and git is asked after all.
   */
  take(args: readonly string[], answer: Promise<GitResult | undefined>): void;
  /** The answer already asked for (or taken), without asking git; undefined when there is none. */
  known(args: readonly string[]): Promise<GitResult | undefined>;
};

export function answersFor(cwd: string): Answers {
  const asked = new Map<string, Promise<GitResult>>();
  const keep = (key: string, pending: Promise<GitResult>) => {
    asked.set(key, pending);
    // A failure to run git is not an answer worth keeping: the next caller asks again (unless an answer was taken since).
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

/** First line of stdout when git succeeded, else undefined. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await git(cwd, args);
  if (!result.ok) return undefined;
  const line = result.stdout.split("\n")[0]?.trim();
  return line === "" ? undefined : line;
}
