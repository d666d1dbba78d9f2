/**
 * What git tracks under a folder that git should ignore (the layer's local half). Git overwrites
 * ignored files on checkout without asking, so a branch that force-added a file there replaces
 * the person's own: such a file is a stranger's, and nothing in it is believed (its task, its
 * ledger lines, its records, a consent or a token). One `git ls-files` per checkout and command.
 */
import { join, relative } from "node:path";
import { GAVE_UP, within } from "../lib/cancel.ts";
import { git, type Answers } from "./git.ts";
import { indexMayHold } from "./index-look.ts";

/** The tracked files under `dir`, as absolute paths; a git that cannot answer tracks nothing it can name. */
export type Tracked = { files: ReadonlySet<string>; failed?: string };

const argsFor = (root: string, dir: string) => [
  "ls-files",
  "-z",
  "--cached",
  "--full-name",
  "--",
  relative(root, dir) || ".",
];

/** The question as the start shim asks it ahead of the binary, for the local half where the manifest keeps it by default. */
export const TRACKED_ARGS = argsFor("/", "/.ai/local");

/** `gitDir`: where the index is; when it shows nothing under `dir`, git is not asked (index-look.ts). */
export async function trackedUnder(root: string, dir: string, answers?: Answers, gitDir?: string): Promise<Tracked> {
  const args = argsFor(root, dir);
  if (gitDir !== undefined && !indexMayHold(gitDir, args.at(-1)!)) return { files: new Set() };
  const run = await (answers ? answers.once(args) : git(root, args)).catch((err: Error) => ({
    ok: false,
    status: null,
    stdout: "",
    stderr: err.message,
  }));
  if (!run.ok) {
    // Asked once per command: a git that failed (or was stopped at a deadline) is not asked again.
    answers?.take(args, Promise.resolve({ ...run, ok: false }));
    return { files: new Set(), failed: run.stderr.trim() || `git exited ${run.status}` };
  }
  return {
    files: new Set(
      run.stdout
        .split("\0")
        .filter((f) => f !== "")
        .map((f) => join(root, f)),
    ),
  };
}

/**
 * The same, within `deadlineMs` (the start hook's git deadline): a git that cannot say in time
 * leaves the files believed, as they were before it was asked, and every later question of this
 * command gets that answer instead of starting git again.
 */
export function trackedWithin(
  root: string,
  dir: string,
  answers: Answers,
  gitDir: string,
  deadlineMs?: number,
): Promise<Tracked> {
  const asked = trackedUnder(root, dir, answers, gitDir);
  if (deadlineMs === undefined) return asked;
  return within(asked, deadlineMs, () => {
    answers.take(argsFor(root, dir), Promise.resolve({ ok: false, status: null, stdout: "", stderr: GAVE_UP }));
    return { files: new Set(), failed: "git did not answer in time" };
  });
}
