/**
 * The commits between an earlier commit and HEAD from one `git log` of the symmetric difference: ancestry, the
 * commits since, and each one's files, read by divergence, task and episode windows and the claims check alike. Past
 * HISTORY_CAP, readers ask git their narrower question.
 */
import { NO_HEAD, isCommitId, type Position } from "./where.ts";
import { redactEach } from "../lib/redact.ts";

export const HISTORY_CAP = 100;

export type Commit = { /** `<short id> <subject>` */ line: string; files: string[] };

export type History = {
  ok: boolean;
  ancestor?: boolean;
  since: Commit[];
  complete: boolean;
};

const SEPARATOR = "\x01";

/** `\x01<side><short> <subject>` opens a commit, then its files one per line. */
export function parseHistory(out: string, cap: number = HISTORY_CAP): Omit<History, "ok"> {
  const since: Commit[] = [];
  let shown = 0;
  let theirs = false;
  let current: Commit | undefined;
  // Subjects and paths are anyone's: each line redacted on its own.
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
  return { since, complete, ancestor: theirs ? false : complete ? true : undefined };
}

const AT_HEAD: History = { ok: true, ancestor: true, since: [], complete: true };
const UNPLACED: History = { ok: false, since: [], complete: false };

/**
 * Listing files makes git diff every commit against its parent: a commit adding 10,000 files costs a start hook tens
 * of ms when nothing reads them.
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
 * The one walk, through the position's answers; a reader of commits takes the walk with files only when one was
 * already asked for.
 */
export async function historySince(
  position: Pick<Position, "git" | "head">,
  from: string,
  need: Need = "files",
): Promise<History> {
  if (from === position.head) return AT_HEAD;
  // A planted `head` (`--output=…`) never reaches git as an option.
  if (from === NO_HEAD || position.head === NO_HEAD || !isCommitId(from)) return UNPLACED;
  const withFiles = walkArgs(from, position.head, true);
  const asked = need === "commits" ? await position.git.known(withFiles) : undefined;
  const run = asked ?? (await position.git.once(need === "files" ? withFiles : walkArgs(from, position.head, false)));
  return run.ok ? { ok: true, ...parseHistory(run.stdout) } : UNPLACED;
}

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
