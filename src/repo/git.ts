/**
 * Running git. Only used where reading git's files is not enough (status, ancestry, logs);
 * the hot path of every hook reads HEAD from disk instead (see where.ts).
 */
import { spawnText } from "../lib/runtime.ts";

export type GitResult = { ok: boolean; status: number | null; stdout: string; stderr: string };

/** Never let git open an editor or a pager, ask for credentials, or translate its output. */
const QUIET = { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_EDITOR: "true", LC_ALL: "C" };

export async function git(cwd: string, args: readonly string[], input?: string, env: Record<string, string> = {}): Promise<GitResult> {
  const run = await spawnText("git", args, { cwd, input, env: { ...process.env, ...QUIET, ...env } });
  return { ok: run.status === 0, ...run };
}

/** First line of stdout when git succeeded, else undefined. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await git(cwd, args);
  if (!result.ok) return undefined;
  const line = result.stdout.split("\n")[0]?.trim();
  return line === "" ? undefined : line;
}
