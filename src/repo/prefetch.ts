/**
 * The briefing needs `git status` (~10 ms a process): the start shim runs it before it execs the binary and names the
 * answer file; a hook handing work on hands its answer the same way. Without one git is asked at once.
 */
import { readPlain } from "../lib/safe-read.ts";
import { constants, rmSync, writeFileSync } from "node:fs";
import { canAccess } from "../lib/fsx.ts";
import { GAVE_UP, onCancel } from "../lib/cancel.ts";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { GitResult } from "./git.ts";
import { STATUS_ARGS } from "./status.ts";
import { TRACKED_ARGS } from "./tracked.ts";
import type { Position } from "./where.ts";

const ANSWER_WAIT_MS = 5_000;
/** Poll every ms while the answer is likely to land (a look costs ~20 µs), then back off to 8 ms. */
const pollAfter = (waited: number) => (waited < 40 ? 1 : waited < 200 ? 4 : 8);

const ANSWER_DIR = join(".ai", "local", "cache");
const ANSWER_NAME = /^git-status\.\d+$/;

export function isShimAnswer(root: string, file: string): boolean {
  const path = resolve(root, file);
  return dirname(path) === resolve(root, ANSWER_DIR) && ANSWER_NAME.test(basename(path));
}

function readIfWhole(file: string): GitResult | undefined {
  const rc = readPlain(`${file}.rc`);
  if (rc === undefined) return undefined;
  // The exit status is written last: until it is there git still runs.
  if (!/^\d+\n$/.test(rc)) return undefined;
  const status = Number(rc.trim());
  const stdout = readPlain(file);
  if (stdout === undefined) return { ok: false, status: null, stdout: "", stderr: "the answer file is missing" };
  return { ok: status === 0, status, stdout, stderr: "" };
}

async function waitForAnswer(file: string): Promise<GitResult | undefined> {
  const since = Date.now();
  const until = since + ANSWER_WAIT_MS;
  // A read-only local half: no answer will come.
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

/** Hand this position's answer to a worker it starts, written where a shim writes them. */
export async function handOnStatus(position: Pick<Position, "worktree" | "git">): Promise<string | undefined> {
  const known = await position.git.known(STATUS_ARGS);
  if (!known?.ok || known.status === null) return undefined;
  const root = position.worktree;
  const file = join(root, ANSWER_DIR, `git-status.${process.pid}${Math.floor(Math.random() * 1e6)}`);
  try {
    writeFileSync(file, known.stdout, { mode: 0o600 });
    writeFileSync(`${file}.rc`, `${known.status}\n`, { mode: 0o600 });
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

const TRACKED_SUFFIX = ".tracked";

/**
 * Start on `git status` now, from a handed-on answer when `answerFile` names one, else from git; the `git ls-files`
 * answer beside it too.
 */
export function startStatus(
  position: Pick<Position, "worktree" | "git">,
  answerFile?: string,
  tracked?: boolean,
): void {
  if (answerFile !== undefined && isShimAnswer(position.worktree, answerFile)) {
    const file = resolve(position.worktree, answerFile);
    position.git.take(STATUS_ARGS, waitForAnswer(file));
    // An older shim asks no `git ls-files`.
    if (tracked || readable(`${file}${TRACKED_SUFFIX}.rc`))
      position.git.take(TRACKED_ARGS, waitForAnswer(`${file}${TRACKED_SUFFIX}`));
  } else void position.git.once(STATUS_ARGS).catch(() => undefined);
}
