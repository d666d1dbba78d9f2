/**
 * The start hook's briefing needs `git status`, and a git process costs ~10 ms here. The start
 * shim runs it in the background before it execs the binary and names the file its answer goes
 * to; otherwise the entry point starts git itself before anything else loads. Either way the
 * command later finds the answer waiting (or waits for it).
 */
import { readFileSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { remember } from "../lib/memo.ts";
import { answeredElsewhere, git, type GitResult } from "./git.ts";
import { STATUS_ARGS } from "./status.ts";

/** How long to wait for the shim's `git status` before asking git again. */
const ANSWER_WAIT_MS = 5_000;
const POLL_MS = 1;

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

/** One wait per answer file, however many times it is asked for: the first reader removes it. */
const waits = new Map<string, Promise<GitResult | undefined>>();

function shimAnswer(file: string): Promise<GitResult | undefined> {
  const known = waits.get(file);
  if (known) return known;
  const wait = waitForAnswer(file);
  waits.set(file, wait);
  return wait;
}

async function waitForAnswer(file: string): Promise<GitResult | undefined> {
  const until = Date.now() + ANSWER_WAIT_MS;
  try {
    for (;;) {
      const answer = readIfWhole(file);
      if (answer) return answer;
      if (Date.now() > until) return undefined;
      await new Promise((wake) => setTimeout(wake, POLL_MS));
    }
  } finally {
    rmSync(file, { force: true });
    rmSync(`${file}.rc`, { force: true });
  }
}

export function prefetchStatus(root: string, answerFile?: string): void {
  remember(true);
  if (answerFile !== undefined && isShimAnswer(root, answerFile)) answeredElsewhere(root, STATUS_ARGS, () => shimAnswer(resolve(root, answerFile)));
  else void git(root, STATUS_ARGS);
}
