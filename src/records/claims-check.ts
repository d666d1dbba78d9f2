/**
 * A record's claims labelled against the tree at the reading: paths, line ranges, symbols, commits and scripts. Never
 * executes anything the repository holds, never follows a link. A file whose fingerprint is as written needs no git,
 * nor one whose lines this checkout kept (records/lines.ts); only the rest send for one `git diff --raw --numstat -M`,
 * and the commits that touched them come from the walk divergence reads too. Bounded by the briefing's git deadline.
 */
import { within } from "../lib/cancel.ts";
import { citedFile, citedText, fileMark, findRange, linesOf, type Cited } from "./ranges.ts";
import { linesChanged, type LineMaps } from "./lines.ts";
import type { Snapshot } from "../repo/status.ts";
import type { GitResult } from "../repo/git.ts";
import { historySince, type Commit } from "../repo/history.ts";
import { isCommitId, NO_HEAD, type Position } from "../repo/where.ts";
import { cited, parseClaim, RANK, type Claim, type ClaimLabel, type ClaimsCheck, type ClaimState } from "./claims.ts";
import type { Meta } from "./record.ts";

const COMMITS_CHECKED = 4;
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

type Change = { status: string; to?: string; added?: number; removed?: number };

export function parseDiff(out: string): Map<string, Change> {
  const byPath = new Map<string, Change>();
  const tokens = out.split("\0");
  const renamedTo = new Map<string, string>();
  for (let i = 0; i < tokens.length;) {
    const t = tokens[i]!;
    if (t.startsWith(":")) {
      const status = t.split(" ").at(-1)![0]!;
      if (status === "R" || status === "C") {
        const from = tokens[i + 1]!;
        const to = tokens[i + 2]!;
        if (status === "R") {
          byPath.set(from, { status, to });
          renamedTo.set(to, from);
        }
        i += 3;
      } else {
        byPath.set(tokens[i + 1]!, { status });
        i += 2;
      }
      continue;
    }
    const num = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(t);
    if (num) {
      const [added, removed] = [num[1] === "-" ? 0 : Number(num[1]), num[2] === "-" ? 0 : Number(num[2])];
      const path = num[3] === "" ? tokens[i + 1]! : num[3]!;
      const key = num[3] === "" ? path : (renamedTo.get(path) ?? path);
      const change = byPath.get(key);
      if (change) Object.assign(change, { added, removed });
      i += num[3] === "" ? 3 : 1;
      continue;
    }
    i++;
  }
  return byPath;
}

/**
 * Commits per path from `git log --format=%x01%H --name-only`: a control character opens a commit, and git quotes any
 * path holding one.
 */
export function parseLogCounts(out: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of out.split("\n")) {
    if (line === "" || line.startsWith("\x01")) continue;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

function scriptsOf(root: string): Record<string, unknown> | undefined {
  const text = citedText(root, "package.json");
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    return scripts && typeof scripts === "object" ? (scripts as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

type Tree = {
  diff?: Map<string, Change>;
  counts: Map<string, number>;
  changedNow: Set<string>;
  writtenChanged: Set<string>;
  why?: string;
};

function settledWithoutGit(c: Extract<Claim, { kind: "path" }>, now: Cited): boolean {
  if (c.file === "none") return true;
  return c.file !== undefined && typeof now === "object" && fileMark(now.text) === c.file;
}

function pathLabel(
  c: Extract<Claim, { kind: "path" }>,
  tree: Tree,
  now: Cited,
  root: string,
  counted?: { added: number; removed: number },
): ClaimLabel {
  const base = { cited: cited(c), kind: c.kind };
  if (c.file === "none")
    return now === "absent"
      ? { ...base, state: "never_existed", label: "never existed" }
      : { ...base, state: "created", label: "created since it was written" };
  if (settledWithoutGit(c, now)) return { ...base, state: "unchanged", label: "unchanged" };
  const commits = (path: string) => tree.counts.get(path) ?? 0;
  const ranged = (main: { state: ClaimState; label: string }, where = c.path): ClaimLabel => {
    if (!c.lines) return { ...base, ...main };
    const [a, b] = c.lines;
    const shown = a === b ? `line ${a}` : `lines ${a}-${b}`;
    if (!c.mark) return { ...base, ...main, label: `${main.label}; the file had no ${shown} when it was written` };
    const text = where === c.path && typeof now === "object" ? now.text : citedText(root, where);
    if (text === undefined) return { ...base, ...main };
    const found = findRange(linesOf(text), c.lines, c.mark);
    if (found.at === "same") return { ...base, ...main, label: `${main.label}; ${shown} unchanged` };
    const state = main.state === "moved" ? "moved" : found.at === "moved" ? "lines_moved" : "lines_changed";
    if (found.at === "gone") return { ...base, state, label: `${main.label}; ${shown} changed` };
    const at = found.from === found.to ? `line ${found.from}` : `lines ${found.from}-${found.to}`;
    return { ...base, state, label: `${main.label}; ${shown} unchanged, now at ${at}` };
  };
  if (counted) {
    const n = commits(c.path);
    const when = n > 0 ? plural(n, "commit") : "uncommitted";
    return ranged({ state: "changed", label: `changed since (${when}, +${counted.added} −${counted.removed} lines)` });
  }
  if (!tree.diff)
    return {
      ...base,
      state: "unknown",
      label: `${now === "absent" ? "not in the tree now" : "in the tree now"}; ${tree.why}`,
    };
  const change = tree.diff.get(c.path);
  const since = (ch: Change, path: string) => {
    const n = commits(path) + (ch.to ? commits(ch.to) : 0);
    const when = n > 0 ? plural(n, "commit") : "uncommitted";
    const before = tree.writtenChanged.has(path)
      ? "; counted from the record's commit, it had changes of its own then"
      : "";
    return `${when}, +${ch.added ?? 0} −${ch.removed ?? 0} lines${before}`;
  };
  if (change?.status === "D") return { ...base, state: "deleted", label: "deleted" };
  if (change?.status === "R") {
    const edited = (change.added ?? 0) + (change.removed ?? 0) > 0;
    const label = `moved to ${change.to}${edited ? ` (changed: ${since(change, c.path)})` : ""}`;
    return ranged({ state: "moved", label }, change.to);
  }
  if (change?.status === "A")
    return tree.writtenChanged.has(c.path) || c.file !== undefined
      ? ranged({ state: "changed", label: `added to git since it was written (${since(change, c.path)})` })
      : { ...base, state: "created", label: "created since it was written" };
  if (change) return ranged({ state: "changed", label: `changed since (${since(change, c.path)})` });
  if (now === "unreadable")
    return { ...base, state: "unknown", label: "not a readable file now (a link, a folder, or too large)" };
  if (typeof now === "object") {
    // Its fingerprint differs but git sees nothing since the record's commit: it is back as committed then.
    if (c.file !== undefined)
      return ranged({ state: "changed", label: "changed since it was written, back as at the record's commit" });
    return tree.changedNow.has(c.path)
      ? { ...base, state: "untracked", label: "not tracked by git: cannot compare" }
      : { ...base, state: "unchanged", label: "unchanged" };
  }
  return tree.writtenChanged.has(c.path) || c.file !== undefined
    ? { ...base, state: "deleted", label: "deleted (it was never committed)" }
    : { ...base, state: "never_existed", label: "never existed" };
}

function pathNow(path: string, tree: Tree): string | undefined {
  const change = tree.diff?.get(path);
  if (change?.status === "D") return undefined;
  return change?.to ?? path;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function symbolLabel(c: Extract<Claim, { kind: "symbol" }>, tree: Tree, root: string): ClaimLabel {
  const base = { cited: `${c.name} in ${c.path}`, kind: c.kind };
  const where = pathNow(c.path, tree);
  const text = where === undefined ? undefined : citedText(root, where);
  if (text === undefined) return { ...base, state: "symbol_gone", label: `${c.path} is not in the tree now` };
  const name = c.name.split(".").at(-1)!;
  const found = new RegExp(`(?<![\\w$])${escaped(name)}(?![\\w$])`).test(text);
  const shown = where === c.path ? c.path : `${where} (moved from ${c.path})`;
  return found
    ? { ...base, state: "unchanged", label: `still in ${shown}` }
    : { ...base, state: "symbol_gone", label: `no longer in ${shown}` };
}

async function commitLabel(
  c: Extract<Claim, { kind: "commit" }>,
  position: Pick<Position, "git" | "head">,
  asked: boolean,
): Promise<ClaimLabel> {
  const base = { cited: c.id, kind: c.kind };
  if (!asked) return { ...base, state: "unknown", label: "not checked (too many commits cited)" };
  if (position.head === NO_HEAD) return { ...base, state: "not_in_history", label: "this checkout has no commits" };
  const run = await position.git.once(["merge-base", "--is-ancestor", c.id, position.head]);
  if (run.status === 0) return { ...base, state: "in_history", label: "in this history" };
  if (run.status === 1)
    return { ...base, state: "not_in_history", label: "not in this history (another branch, or rewritten)" };
  return { ...base, state: "unknown", label: "not a commit of this repository" };
}

function scriptLabel(c: Extract<Claim, { kind: "script" }>, scripts: Record<string, unknown> | undefined): ClaimLabel {
  const base = { cited: c.command, kind: c.kind };
  if (scripts === undefined) return { ...base, state: "no_script", label: "no readable package.json at the root" };
  return Object.hasOwn(scripts, c.name)
    ? { ...base, state: "script", label: `a script of package.json (${c.name})` }
    : { ...base, state: "no_script", label: `package.json has no script ${c.name} now` };
}

function askGit(
  meta: Pick<Meta, "head">,
  paths: { diff: readonly string[]; counted: readonly string[] },
  position: Pick<Position, "git" | "head">,
): { diff?: Promise<GitResult>; counts?: Promise<Map<string, number>> } {
  // A planted `head` (`--output=…`) is never handed to git as an option.
  if (meta.head !== NO_HEAD && !isCommitId(meta.head)) return {};
  const from = meta.head === NO_HEAD ? EMPTY_TREE : meta.head;
  const moved = meta.head !== position.head && meta.head !== NO_HEAD && position.head !== NO_HEAD;
  const logged = [...paths.diff, ...paths.counted];
  return {
    diff:
      paths.diff.length > 0
        ? position.git.once(["diff", "--raw", "--numstat", "-M", "-z", "--no-ext-diff", from])
        : undefined,
    counts: moved && logged.length > 0 ? commitCounts(meta.head, logged, position) : undefined,
  };
}

/**
 * Commits since `from` per path, from the walk divergence reads (one git process for both); past its cap, a log of
 * those paths.
 */
async function commitCounts(
  from: string,
  paths: readonly string[],
  position: Pick<Position, "git" | "head">,
): Promise<Map<string, number>> {
  const history = await historySince(position, from);
  const wanted = new Set(paths);
  if (history.complete) return countsOf(history.since, wanted);
  const log = await position.git.once([
    "-c",
    "core.quotePath=false",
    "log",
    "--format=\x01%H",
    "--name-only",
    "--no-renames",
    `${from}..${position.head}`,
    "--",
    ...paths,
  ]);
  return log.ok ? parseLogCounts(log.stdout) : new Map();
}

export function countsOf(since: readonly Commit[], paths: ReadonlySet<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const commit of since)
    for (const file of commit.files) if (paths.has(file)) counts.set(file, (counts.get(file) ?? 0) + 1);
  return counts;
}

function gitAsks(
  claims: readonly Claim[],
  fileNow: (path: string) => Cited,
  counted: ReadonlyMap<string, unknown>,
): { paths: string[]; counted: string[]; legacyOnly: boolean } {
  const asks = claims.flatMap((c) =>
    c.kind === "path" && !settledWithoutGit(c, fileNow(c.path)) && !counted.has(c.path)
      ? [{ path: c.path, legacy: c.file === undefined }]
      : c.kind === "symbol" && fileNow(c.path) === "absent"
        ? [{ path: c.path, legacy: false }]
        : [],
  );
  return {
    paths: [...new Set(asks.map((a) => a.path))],
    counted: [...counted.keys()],
    legacyOnly: asks.every((a) => a.legacy),
  };
}

/**
 * One `git diff --raw --numstat -M` and, when HEAD moved, one `git log`, started before git status is in.
 * `statusMay`: at HEAD, a status naming none of the paths settles them first.
 */
async function treeFor(
  meta: Pick<Meta, "head" | "changed_files">,
  paths: string[],
  counted: string[],
  statusMay: boolean,
  position: Pick<Position, "git" | "head" | "worktree">,
  status: Promise<Snapshot>,
): Promise<Tree> {
  const writtenChanged = new Set(meta.changed_files);
  const headMoved = meta.head !== position.head;
  const none = (snapshot: Snapshot) => ({
    diff: new Map(),
    counts: new Map(),
    changedNow: new Set(snapshot.changed),
    writtenChanged,
  });
  if (paths.length === 0 && (counted.length === 0 || !headMoved)) return none(await status);
  if (!headMoved && statusMay) {
    const snapshot = await status;
    const named = new Set<string>([...snapshot.changed, ...(snapshot.movedFrom ?? [])]);
    if (snapshot.workingTree !== "unknown" && !paths.some((p) => named.has(p))) return none(snapshot);
  }
  const asked = askGit(meta, { diff: paths, counted }, position);
  const [diff, counts, snapshot] = await Promise.all([asked.diff, asked.counts, status]);
  const changedNow = new Set(snapshot.changed);
  if (paths.length > 0 && !diff)
    return { counts: new Map(), changedNow, writtenChanged, why: "the record names no commit git can place" };
  if (diff && !diff.ok)
    return {
      counts: new Map(),
      changedNow,
      writtenChanged,
      why: `git cannot compare from the record's commit ${meta.head.slice(0, 12)}`,
    };
  return {
    diff: diff ? parseDiff(diff.stdout) : new Map(),
    counts: counts ?? new Map(),
    changedNow,
    writtenChanged,
  };
}

async function check(
  claims: Claim[],
  meta: Pick<Meta, "head" | "changed_files">,
  position: Pick<Position, "git" | "head" | "worktree">,
  status: Promise<Snapshot>,
  lineMaps: LineMaps,
): Promise<ClaimsCheck> {
  const root = position.worktree;
  const files = new Map<string, Cited>();
  const fileNow = (path: string) => files.get(path) ?? files.set(path, citedFile(root, path)).get(path)!;
  const counted = new Map<string, { added: number; removed: number }>();
  for (const c of claims) {
    const now = c.kind === "path" && c.file !== undefined && !counted.has(c.path) ? fileNow(c.path) : undefined;
    const before = c.kind === "path" ? lineMaps[c.path] : undefined;
    if (typeof now !== "object" || before === undefined || c.kind !== "path" || settledWithoutGit(c, now)) continue;
    const changed = linesChanged(before, linesOf(now.text));
    if (changed) counted.set(c.path, changed);
  }
  const asks = gitAsks(claims, fileNow, counted);
  const tree = await treeFor(meta, asks.paths, asks.counted, asks.legacyOnly, position, status);
  const scripts = claims.some((c) => c.kind === "script") ? scriptsOf(root) : undefined;
  let commitsAsked = 0;
  const labels = await Promise.all(
    claims.map((c) =>
      c.kind === "path"
        ? pathLabel(c, tree, fileNow(c.path), root, counted.get(c.path))
        : c.kind === "symbol"
          ? symbolLabel(c, tree, root)
          : c.kind === "commit"
            ? commitLabel(c, position, commitsAsked++ < COMMITS_CHECKED)
            : scriptLabel(c, scripts),
    ),
  );
  const pathLabels = labels.filter((l) => l.kind === "path");
  const sorted = labels
    .map((l, i) => ({ l, i }))
    .sort((x, y) => RANK[x.l.state] - RANK[y.l.state] || x.i - y.i)
    .map((x) => x.l);
  return {
    labels: sorted,
    // Gone: a cited path that was there is not now. Paths never there (what a Next Action creates) say nothing of that.
    all_gone:
      pathLabels.some((l) => l.state === "deleted") &&
      pathLabels.every((l) => l.state === "deleted" || l.state === "never_existed"),
    ...(tree.why ? { why: tree.why } : {}),
  };
}

/** The claims labelled against the tree now, within `deadlineMs`; undefined when the record cites nothing. */
export async function checkClaims(
  meta: Pick<Meta, "head" | "changed_files" | "claims">,
  position: Pick<Position, "git" | "head" | "worktree">,
  status: Promise<Snapshot>,
  deadlineMs?: number,
  lineMaps: LineMaps = {},
): Promise<ClaimsCheck | undefined> {
  const claims = (meta.claims ?? []).map(parseClaim).filter((c): c is Claim => c !== undefined);
  if (claims.length === 0) return undefined;
  const work = check(claims, meta, position, status, lineMaps);
  if (deadlineMs === undefined) return work;
  return within(work, deadlineMs, () => ({
    labels: [],
    all_gone: false,
    why: "git did not answer within session.git_deadline_ms",
  }));
}
