/** What git says has changed: the working tree now, and the commits and files since a start commit. */
import { GAVE_UP, within } from "../lib/cancel.ts";
import { type Position, type WorkingTree } from "./where.ts";
import { ancestry, historySince } from "./history.ts";
import { redactEach, type Clean } from "../lib/redact.ts";

/**
 * The working tree less majordomus's own new closed records, which are not the worker's changes. `movedFrom`: rename
 * sources.
 */
export type Snapshot = {
  workingTree: WorkingTree;
  changed: Clean[];
  ownRecords: string[];
  movedFrom?: Clean[];
  why?: string;
};

export const DEADLINE_WHY = "git status did not answer within session.git_deadline_ms";

export const STATUS_ARGS = ["status", "--porcelain=v1", "-z", "--untracked-files=all"] as const;

export type Own = { recordsDir?: string };

const isOwnRecord = (path: string, own: Own) =>
  own.recordsDir !== undefined &&
  path.startsWith(own.recordsDir) &&
  path.endsWith(".md") &&
  !path.endsWith("/README.md") &&
  !path.slice(own.recordsDir.length).includes("/");

// 127 is the shell's "not found" (the start shim runs git itself).
function failedWhy(status: { status: number | null; stderr: string }): string {
  const said = status.stderr.trim().split("\n")[0];
  if (said) return `git status failed: ${said}`;
  return status.status === 127
    ? "git could not be started: it is not on the PATH the client gave its hooks"
    : `git status failed${status.status === null ? "" : ` (exit ${status.status})`}`;
}

/** Given up after `deadlineMs`: then the tree is unknown, and why is said. */
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
    if (entry[0] === "R" || entry[0] === "C") {
      if (entry[0] === "R" && fields[i + 1]) movedFrom.push(fields[i + 1]!);
      i++;
    }
  }
  // Paths are anyone's: redacted here, for every surface.
  const list = redactEach([...changed].sort());
  return {
    workingTree: list.length === 0 ? "clean" : "dirty",
    changed: list,
    ownRecords: [...ownRecords].sort(),
    ...(movedFrom.length > 0 ? { movedFrom: redactEach(movedFrom) } : {}),
  };
}

export async function isAncestor(position: Pick<Position, "git" | "head">, from: string): Promise<boolean> {
  return (await ancestry(position, from)) === true;
}

export async function commitsSince(position: Pick<Position, "git" | "head">, start: string): Promise<string[]> {
  if (start === position.head || !(await isAncestor(position, start))) return [];
  const history = await historySince(position, start);
  if (history.complete) return history.since.map((c) => c.line);
  const log = await position.git.once(["log", "--format=%h %s", `${start}..${position.head}`]);
  return log.ok ? log.stdout.split("\n").filter((l) => l !== "") : [];
}

/** The paths changed since `start` and now, each through the gate (a file name in a commit is anyone's). */
export async function filesSince(
  position: Pick<Position, "git" | "head">,
  start: string | undefined,
  now: Snapshot,
  own: Own = {},
): Promise<Clean[]> {
  const committed: string[] = [];
  if (start && start !== position.head && (await isAncestor(position, start))) {
    const diff = await position.git.once(["diff", "--name-only", "-z", `${start}..${position.head}`]);
    if (diff.ok) for (const f of diff.stdout.split("\0")) if (f !== "" && !isOwnRecord(f, own)) committed.push(f);
  }
  return [...new Set([...now.changed, ...redactEach(committed)])].sort();
}
