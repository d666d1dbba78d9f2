/**
 * The commits between an earlier commit and HEAD, asked of git once: one `git log` of the
 * symmetric difference answers whether the earlier commit is an ancestor (nothing on its side),
 * which commits came since, and which files each changed. Divergence, the commits since a task or
 * an episode began, and the claims check's commit counts all read the same answer, so a record's
 * placement and its citations cost one git process, not two or three.
 *
 * The walk stops at HISTORY_CAP commits; past it, `complete` is false and each reader asks git
 * its narrower question instead (merge-base for ancestry, a path-limited log for counts).
 */
import { NO_HEAD, isCommitId, type Position } from "./where.ts";
import { redactEach } from "../lib/redact.ts";

/** How many commits one walk reads before it gives way to narrower questions. */
export const HISTORY_CAP = 100;

export type Commit = { /** `<short id> <subject>` */ line: string; files: string[] };

export type History = {
  /** False when git could not walk from the commit (not one of this repository's). */
  ok: boolean;
  /** Whether the commit is an ancestor of HEAD; undefined when this walk cannot say. */
  ancestor?: boolean;
  /** The commits in from..HEAD, newest first, each with the files it changed (none for a merge). */
  since: Commit[];
  /** Whether `since` holds every one of them. */
  complete: boolean;
};

const SEPARATOR = "\x01";

/** The log's output read back: `\x01<side><short> <subject>` opens a commit, then its files one per line. */
export function parseHistory(out: string, cap: number = HISTORY_CAP): Omit<History, "ok"> {
  const since: Commit[] = [];
  let shown = 0;
  let theirs = false;
  let current: Commit | undefined;
  // Subjects and paths are written by whoever made the commit: each line is redacted on its own.
  for (const line of redactEach(out.split("\n"))) {
    if (line.startsWith(SEPARATOR)) {
      shown++;
      const mine = line[1] === ">";
      theirs ||= !mine;
      current = mine ? { line: line.slice(2), files: [] } : undefined;
      if (current) since.push(current);
    } else if (line !== "" && current) current.files.push(line);
  }
  const complete = shown <= cap;
  // A commit on the earlier side means the earlier commit is not reachable from HEAD.
  return { since, complete, ancestor: theirs ? false : complete ? true : undefined };
}

const AT_HEAD: History = { ok: true, ancestor: true, since: [], complete: true };
const UNPLACED: History = { ok: false, since: [], complete: false };

/**
 * What a reader needs of the walk: the files each commit changed (the claims check, the files
 * since a task or an episode began), or only the commits (a label, a count). Listing the files
 * makes git compare each commit's tree with its parent's: a commit that adds 10,000 files costs
 * tens of milliseconds a start hook need not spend when nothing reads them.
 */
export type Need = "files" | "commits";

const walkArgs = (from: string, head: string, files: boolean): string[] => [
  "-c",
  "core.quotePath=false",
  "log",
  "--left-right",
  `--format=${SEPARATOR}%m%h %s`,
  ...(files ? ["--name-only", "--no-renames"] : []),
  `--max-count=${HISTORY_CAP + 1}`,
  `${from}...${head}`,
  "--",
];

/**
 * The one walk from `from` to HEAD, asked through the position's answers (a second reader gets the
 * same run). A reader of commits only takes the walk with files when one was already asked for;
 * `since[].files` is empty in a walk of commits only.
 */
export async function historySince(
  position: Pick<Position, "git" | "head">,
  from: string,
  need: Need = "files",
): Promise<History> {
  if (from === position.head) return AT_HEAD;
  // A commit id only: a planted `head` (`--output=…`) never reaches git as an option.
  if (from === NO_HEAD || position.head === NO_HEAD || !isCommitId(from)) return UNPLACED;
  const withFiles = walkArgs(from, position.head, true);
  const asked = need === "commits" ? await position.git.known(withFiles) : undefined;
  const run = asked ?? (await position.git.once(need === "files" ? withFiles : walkArgs(from, position.head, false)));
  return run.ok ? { ok: true, ...parseHistory(run.stdout) } : UNPLACED;
}

/**
 * Whether `from` is an ancestor of (or equal to) HEAD; undefined when git cannot place it. The
 * walk answers it; past its cap with nothing on the earlier side, merge-base does.
 */
export async function ancestry(
  position: Pick<Position, "git" | "head">,
  from: string,
  need: Need = "files",
): Promise<boolean | undefined> {
  const history = await historySince(position, from, need);
  if (!history.ok || history.ancestor !== undefined) return history.ancestor;
  const run = await position.git.once(["merge-base", "--is-ancestor", from, position.head]);
  return run.status === 0 ? true : run.status === 1 ? false : undefined;
}
