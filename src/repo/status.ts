/** What git says has changed: the working tree now, and the commits and files since a start commit. */
import { GAVE_UP, within } from "../lib/cancel.ts";
import { type Position, type WorkingTree } from "./where.ts";
import { ancestry, historySince } from "./history.ts";
import { redactEach } from "../lib/redact.ts";

/**
 * The working tree as git sees it, less majordomus's own records: `ownRecords` are the closed
 * session records git reports as new (untracked, or added and not committed), which are not the
 * worker's changes; every other path is in `changed`.
 */
/** `movedFrom`: the source paths of the renames git status reports (each rename is in `changed` by its new path). */
export type Snapshot = {
  workingTree: WorkingTree;
  changed: string[];
  ownRecords: string[];
  movedFrom?: string[];
  why?: string;
};

/** Why the tree is unknown when git was stopped at the start hook's deadline. */
export const DEADLINE_WHY = "git status did not answer within session.git_deadline_ms";

export const STATUS_ARGS = ["status", "--porcelain=v1", "-z", "--untracked-files=all"] as const;

/** Where majordomus's own records live (repository-relative, ending in `/`), so git's view can leave them out. */
export type Own = { recordsDir?: string };

const isOwnRecord = (path: string, own: Own) =>
  own.recordsDir !== undefined &&
  path.startsWith(own.recordsDir) &&
  path.endsWith(".md") &&
  !path.endsWith("/README.md") &&
  !path.slice(own.recordsDir.length).includes("/");

/** Why git's answer is missing; 127 is the shell's "not found" (the start shim runs git itself). */
function failedWhy(status: { status: number | null; stderr: string }): string {
  const said = status.stderr.trim().split("\n")[0];
  if (said) return `git status failed: ${said}`;
  return status.status === 127
    ? "git could not be started: it is not on the PATH the client gave its hooks"
    : `git status failed${status.status === null ? "" : ` (exit ${status.status})`}`;
}

/**
 * The snapshot, given up after `deadlineMs` (the start hook's bound on the client's path): then the
 * working tree is unknown, and why is said. Without a deadline it is waited for.
 */
export function snapshotWithin(
  position: Pick<Position, "git">,
  own: Own,
  deadlineMs: number | undefined,
): Promise<Snapshot> {
  const status = snapshot(position, own);
  if (deadlineMs === undefined) return status;
  return within(status, deadlineMs, () => ({
    workingTree: "unknown" as const,
    changed: [],
    ownRecords: [],
    why: DEADLINE_WHY,
  }));
}

/** Paths git reports as changed in the working tree (a rename counts as its new path), sorted. */
export async function snapshot(position: Pick<Position, "git">, own: Own = {}): Promise<Snapshot> {
  const status = await position.git.once(STATUS_ARGS);
  if (!status.ok)
    return {
      workingTree: "unknown",
      changed: [],
      ownRecords: [],
      why: status.stderr === GAVE_UP ? DEADLINE_WHY : failedWhy(status),
    };
  const fields = status.stdout.split("\0");
  const changed = new Set<string>();
  const ownRecords = new Set<string>();
  const movedFrom: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    const path = entry.slice(3);
    const code = entry.slice(0, 2);
    if ((code === "??" || code === "A ") && isOwnRecord(path, own)) ownRecords.add(path);
    else changed.add(path);
    // A rename or copy is followed by its source path, which is not a change of its own.
    if (entry[0] === "R" || entry[0] === "C") {
      if (entry[0] === "R" && fields[i + 1]) movedFrom.push(fields[i + 1]!);
      i++;
    }
  }
  // A path is named by whoever made the file: a token in it is redacted here, for every surface.
  const list = redactEach([...changed].sort());
  return {
    workingTree: list.length === 0 ? "clean" : "dirty",
    changed: list,
    ownRecords: [...ownRecords].sort(),
    ...(movedFrom.length > 0 ? { movedFrom: redactEach(movedFrom) } : {}),
  };
}

/** Whether `from` is an ancestor of (or equal to) HEAD. */
export async function isAncestor(position: Pick<Position, "git" | "head">, from: string): Promise<boolean> {
  return (await ancestry(position, from)) === true;
}

/** `<short> <subject>` for each commit in start..HEAD, newest first; empty when start is not an ancestor. */
export async function commitsSince(position: Pick<Position, "git" | "head">, start: string): Promise<string[]> {
  if (start === position.head || !(await isAncestor(position, start))) return [];
  const history = await historySince(position, start);
  if (history.complete) return history.since.map((c) => c.line);
  const log = await position.git.once(["log", "--format=%h %s", `${start}..${position.head}`]);
  return log.ok ? log.stdout.split("\n").filter((l) => l !== "") : [];
}

/** Files changed by the commits since `start` (when it is an ancestor), plus the working tree's; never majordomus's own records. */
export async function filesSince(
  position: Pick<Position, "git" | "head">,
  start: string | undefined,
  now: Snapshot,
  own: Own = {},
): Promise<string[]> {
  const files = new Set(now.changed);
  if (start && start !== position.head && (await isAncestor(position, start))) {
    const diff = await position.git.once(["diff", "--name-only", "-z", `${start}..${position.head}`]);
    if (diff.ok) for (const f of diff.stdout.split("\0")) if (f !== "" && !isOwnRecord(f, own)) files.add(f);
  }
  return [...files].sort();
}
