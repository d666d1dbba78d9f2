/**
 * The start hook's briefing needs `git status`, and a git process costs ~10 ms here. The start
 * shim runs it in the background before it execs the binary and names the file its answer goes
 * to; a hook that hands work to a worker hands its answer on the same way. The position takes the
 * answer as git's (or waits for it); without one, git is asked at once.
 */
import { constants, readFileSync, rmSync, writeFileSync } from "node:fs";
import { canAccess } from "../lib/fsx.ts";
import { GAVE_UP, onCancel } from "../lib/cancel.ts";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { GitResult } from "./git.ts";
import { STATUS_ARGS } from "./status.ts";
import { TRACKED_ARGS } from "./tracked.ts";
import type { Position } from "./where.ts";

/** The longest a wait for the shim's `git status` may last; the briefing's own deadline (session.git_deadline_ms) cancels it sooner. */
const ANSWER_WAIT_MS = 5_000;
/**
 * How long to sleep between looks, by how long the wait has lasted: a git status here takes a few
 * ms to hundreds. Every ms counts while it is likely to land (a look costs one failed open, ~20 µs),
 * then the looks back off to 8 ms so that nothing spins on a slow one.
 */
const pollAfter = (waited: number) => (waited < 40 ? 1 : waited < 200 ? 4 : 8);

const ANSWER_DIR = join(".ai", "local", "cache");
const ANSWER_NAME = /^git-status\.\d+$/;

/** Only a file the shim names in this repository's cache, under its own name, is read (and removed). */
export function isShimAnswer(root: string, file: string): boolean {
  const path = resolve(root, file);
  return dirname(path) === resolve(root, ANSWER_DIR) && ANSWER_NAME.test(basename(path));
}

function readIfWhole(file: string): GitResult | undefined {
  let rc: string;
  try {
    rc = readFileSync(`${file}.rc`, "utf8");
  } catch {
    return undefined;
  }
  // The exit status is written last, then a newline: until both are there git is still running.
  if (!/^\d+\n$/.test(rc)) return undefined;
  const status = Number(rc.trim());
  let stdout = "";
  try {
    stdout = readFileSync(file, "utf8");
  } catch {
    return { ok: false, status: null, stdout: "", stderr: "the answer file is missing" };
  }
  return { ok: status === 0, status, stdout, stderr: "" };
}

async function waitForAnswer(file: string): Promise<GitResult | undefined> {
  const since = Date.now();
  const until = since + ANSWER_WAIT_MS;
  // The shim could not write its answer (a read-only local half): nothing will come, do not wait.
  if (!writable(dirname(file))) return undefined;
  let cancelled = false;
  const forget = onCancel(() => (cancelled = true));
  try {
    for (;;) {
      const answer = readIfWhole(file);
      if (answer) return answer;
      if (cancelled) return { ok: false, status: null, stdout: "", stderr: GAVE_UP };
      if (Date.now() > until) return undefined;
      await new Promise((wake) => setTimeout(wake, pollAfter(Date.now() - since)));
    }
  } finally {
    forget();
    rmSync(file, { force: true });
    rmSync(`${file}.rc`, { force: true });
  }
}

const writable = (dir: string) => canAccess(dir, constants.W_OK);
const readable = (file: string) => canAccess(file, constants.F_OK);

/**
 * Hand the answer this position already has on to a worker it starts: written where a shim writes
 * its answers (the same two files), so the worker reads it instead of running git again. Returns
 * the file's path, or undefined when there is no answer to hand on or it could not be written.
 */
export async function handOnStatus(position: Pick<Position, "worktree" | "git">): Promise<string | undefined> {
  const known = await position.git.known(STATUS_ARGS);
  if (!known?.ok || known.status === null) return undefined;
  const root = position.worktree;
  const file = join(root, ANSWER_DIR, `git-status.${process.pid}${Math.floor(Math.random() * 1e6)}`);
  try {
    writeFileSync(file, known.stdout, { mode: 0o600 });
    writeFileSync(`${file}.rc`, `${known.status}\n`, { mode: 0o600 });
    // What git tracks of the local half goes with it, when this process has git's answer.
    const tracked = await position.git.known(TRACKED_ARGS);
    if (tracked?.ok && tracked.status !== null) {
      writeFileSync(`${file}${TRACKED_SUFFIX}`, tracked.stdout, { mode: 0o600 });
      writeFileSync(`${file}${TRACKED_SUFFIX}.rc`, `${tracked.status}\n`, { mode: 0o600 });
    }
    return relative(root, file);
  } catch {
    rmSync(file, { force: true });
    return undefined;
  }
}

/** The answer to `git ls-files` of the local half sits beside the status answer, under this suffix. */
const TRACKED_SUFFIX = ".tracked";

/**
 * Start on `git status` now: take a handed-on answer (a shim's or a hook's) as git's when `answerFile`
 * names one, else ask git. Whatever asks for the status later gets this answer; so with the answer
 * to `git ls-files` of the local half, when the shim (`tracked`) or a hook handed one on beside it.
 */
export function startStatus(
  position: Pick<Position, "worktree" | "git">,
  answerFile?: string,
  tracked?: boolean,
): void {
  if (answerFile !== undefined && isShimAnswer(position.worktree, answerFile)) {
    const file = resolve(position.worktree, answerFile);
    position.git.take(STATUS_ARGS, waitForAnswer(file));
    // The shim says it asks `git ls-files` too (an older one does not); a handed-on answer is there already.
    if (tracked || readable(`${file}${TRACKED_SUFFIX}.rc`))
      position.git.take(TRACKED_ARGS, waitForAnswer(`${file}${TRACKED_SUFFIX}`));
  } else void position.git.once(STATUS_ARGS).catch(() => undefined);
}
