/**
 * What git tracks under the local half, which it should ignore: git overwrites ignored files on checkout, so a
 * force-added file there is a stranger's and nothing in it is believed.
 */
import { join, relative } from "node:path";
import { GAVE_UP, within } from "../lib/cancel.ts";
import { git, type Answers } from "./git.ts";
import { indexMayHold } from "./index-look.ts";

export type Tracked = { files: ReadonlySet<string>; failed?: string };

const argsFor = (root: string, dir: string) => [
  "ls-files",
  "-z",
  "--cached",
  "--full-name",
  "--",
  relative(root, dir) || ".",
];

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
    // A git that failed or was stopped is not asked again in this command.
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
 * Within the start hook's deadline: a git that cannot say in time leaves the files believed, and this command does
 * not ask again.
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
