/**
 * Running git. Only used where reading git's files is not enough (status, ancestry, logs);
 * the hot path of every hook reads HEAD from disk instead (see where.ts).
 */
import { memo, peekMemo } from "../lib/memo.ts";
import { spawnText } from "../lib/runtime.ts";
import { environment } from "../lib/env.ts";

export type GitResult = { ok: boolean; status: number | null; stdout: string; stderr: string };

/** Never let git open an editor or a pager, ask for credentials, or translate its output. */
const QUIET = { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_EDITOR: "true", LC_ALL: "C" };

/**
 * Questions that cannot change while one command runs (majordomus writes only git-ignored files
 * before its last step). Each costs a process (~10 ms here), so a command asks each one once.
 */
const ANSWERS_ONCE = new Set(["status", "merge-base", "log", "diff", "rev-parse", "symbolic-ref"]);

const keyOf = (cwd: string, args: readonly string[]) => `git\0${cwd}\0${args.join("\0")}`;

function ask(
  cwd: string,
  args: readonly string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<GitResult> {
  // Optional locks off: a hook must never take the index lock a person's own git command needs.
  return spawnText("git", args, {
    cwd,
    input,
    env: { ...environment(), ...QUIET, GIT_OPTIONAL_LOCKS: "0", ...env },
  }).then((run) => ({ ok: run.status === 0, ...run }));
}

export async function git(
  cwd: string,
  args: readonly string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<GitResult> {
  const once = input === undefined && Object.keys(env).length === 0 && ANSWERS_ONCE.has(args[0] ?? "");
  return once ? memo(keyOf(cwd, args), () => ask(cwd, args)) : ask(cwd, args, input, env);
}

/**
 * Take git's answer to a question from elsewhere (the start shim ran `git status` before this
 * process existed); `answer` resolves undefined when there is none, and git is asked after all.
 */
export function answeredElsewhere(
  cwd: string,
  args: readonly string[],
  answer: () => Promise<GitResult | undefined>,
): void {
  void memo(keyOf(cwd, args), async () => (await answer()) ?? ask(cwd, args));
}

/** The answer already asked for (or handed over) in this command, without asking git; undefined when there is none. */
export function peekAnswer(cwd: string, args: readonly string[]): Promise<GitResult | undefined> {
  return peekMemo<GitResult>(keyOf(cwd, args)) ?? Promise.resolve(undefined);
}

/** First line of stdout when git succeeded, else undefined. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await git(cwd, args);
  if (!result.ok) return undefined;
  const line = result.stdout.split("\n")[0]?.trim();
  return line === "" ? undefined : line;
}
