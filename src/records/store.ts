/**
 * Publishing and finding records in one checkout's folders. A write takes the records lock, draws the next sequence
 * number, publishes under a new name (temp file + link, 0600), and points the branch's index at it, so the newest
 * record never costs a scan.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { ensureDir, publishNew, randomHex, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import type { Clean } from "../lib/redact.ts";
import { compactStampMs } from "../lib/clock.ts";
import { createHash } from "../lib/runtime.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import type { RecordKind } from "./kinds.ts";
import { newer, readRecord, render, type Loaded, type Meta } from "./record.ts";

const INDEX_DIR = ".index";
const LOCK_WAIT_MS = 3_000;

export type Store = { kind: RecordKind; dir: string; stateDir: string };

export function storeOf(layer: Layer, kind: RecordKind): Store {
  return { kind, dir: sectionPath(layer, kind.section), stateDir: sectionPath(layer, "state") };
}

const KEY_MAX = 160;

/**
 * File-name-safe and one-to-one (%XX). A key past KEY_MAX (a 282-character branch made every handover fail) is its
 * first 100 characters, `~` and a SHA-256: `~` is never bare in a key.
 */
export function branchKey(branch: string): string {
  const key = [...Buffer.from(branch, "utf8")]
    .map((b) =>
      /[A-Za-z0-9._-]/.test(String.fromCharCode(b)) && b < 128
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
  return key.length <= KEY_MAX ? key : `${key.slice(0, 100)}~${createHash("sha256", branch).slice(0, 32)}`;
}

export function readableBranch(branch: string): string {
  return branch.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60) || "-";
}

const SEQ_FILE = "record-seq";

function lastSeq(stateDir: string, dirs: string[]): number {
  try {
    const n = Number.parseInt(readLayerFile(join(stateDir, SEQ_FILE)), 10);
    if (Number.isInteger(n) && n >= 0) return n;
  } catch {}
  let max = 0;
  for (const dir of dirs)
    for (const name of listNames(dir)) max = Math.max(max, Number(/--(\d+)--/.exec(name)?.[1] ?? 0));
  return max;
}

export const isRecordName = (n: string): boolean => n.endsWith(".md") && !n.startsWith(".") && n !== "README.md";

export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter(isRecordName);
  } catch {
    return [];
  }
}

type IndexEntry = { file: string; created_at: string; seq: number };

/**
 * Two entries per branch: the newest record, and the newest authored one (`<branch>+authored`, `{"file": null}` when
 * none), since resolution keeps authored over later derived. `+` is never bare in a key, so no branch's entry is
 * another's; the old `.authored` name is still read.
 */
export type IndexName = "any" | "authored";

function indexPath(store: Store, branch: string, which: IndexName = "any"): string {
  return join(store.dir, INDEX_DIR, `${branchKey(branch)}${which === "authored" ? "+authored" : ""}`);
}

export function readIndex(store: Store, branch: string, which: IndexName = "any"): IndexEntry | null | undefined {
  try {
    const path = indexPath(store, branch, which);
    const legacy =
      which === "authored" && !lstatSync(path, { throwIfNoEntry: false })
        ? join(store.dir, INDEX_DIR, `${branchKey(branch)}.authored`)
        : path;
    const entry = JSON.parse(readLayerFile(legacy)) as IndexEntry | { file: null };
    if (entry.file === null) return which === "authored" ? null : undefined;
    return typeof entry.file === "string" ? (entry as IndexEntry) : undefined;
  } catch {
    return undefined;
  }
}

function writeIndex(store: Store, branch: string, which: IndexName, entry: IndexEntry | { file: null }): void {
  ensureDir(join(store.dir, INDEX_DIR), 0o700);
  writeFileAtomic(indexPath(store, branch, which), `${JSON.stringify(entry)}\n`, 0o600, { durable: false });
}

async function newestAuthored(store: Store, branch: string): Promise<IndexEntry | null> {
  let best: Meta | undefined;
  let file: string | undefined;
  for (const name of listNames(store.dir)) {
    const parsed = await readRecord(store.kind, join(store.dir, name), name);
    if (!parsed.ok || parsed.record.meta.how !== "authored" || parsed.record.meta.branch !== branch) continue;
    if (!best || newer(parsed.record.meta, best)) [best, file] = [parsed.record.meta, name];
  }
  return best && file ? { file, created_at: best.created_at, seq: best.seq } : null;
}

export type Draft = Omit<Meta, "seq" | "schema">;

/** A record's file name: its creation to the millisecond, its sequence number, its branch and commit. */
export function recordName(meta: Pick<Meta, "created_at" | "branch" | "head">, seq: number): string {
  const stamp = compactStampMs(new Date(meta.created_at));
  return `${stamp}--${String(seq).padStart(6, "0")}--${readableBranch(meta.branch)}--${meta.head.slice(0, 7)}.md`;
}

/**
 * Draw `n` sequence numbers in one span of the records lock, so a writer can name its records before it writes them
 * (a close quotes its checkpoint's path in the handover it writes after it).
 */
export function reserveSeqs(store: Store, otherDirs: string[], n: number): number[] {
  ensureDir(store.stateDir, 0o700);
  const done = withLock(join(store.stateDir, "records.lock"), LOCK_WAIT_MS, () => {
    const last = lastSeq(store.stateDir, [store.dir, ...otherDirs]);
    writeFileAtomic(join(store.stateDir, SEQ_FILE), `${last + n}\n`, 0o600, { durable: false });
    return Array.from({ length: n }, (_, i) => last + 1 + i);
  });
  if (!done.acquired)
    throw new Failure("refused", "the records lock is held by another majordomus", "retry in a moment");
  return done.value;
}

/** The branch's index entries point at the new record where it is the newest (of its kind and authored). */
function pointIndexes(
  store: Store,
  meta: Meta,
  entry: IndexEntry,
  authoredBefore: IndexEntry | null | undefined,
): void {
  const isNewer = (current: IndexEntry | null | undefined) =>
    !current || newer(meta, { ...meta, created_at: current.created_at, seq: current.seq });
  if (isNewer(readIndex(store, meta.branch))) writeIndex(store, meta.branch, "any", entry);
  if (meta.how === "authored" && isNewer(readIndex(store, meta.branch, "authored")))
    writeIndex(store, meta.branch, "authored", entry);
  else if (authoredBefore !== undefined && readIndex(store, meta.branch, "authored") === undefined)
    writeIndex(store, meta.branch, "authored", authoredBefore ?? { file: null });
}

/** `seq`: a number reserveSeqs drew; the record then takes exactly the name it gives, or nothing is written. */
export async function publish(
  store: Store,
  draft: Draft,
  body: Clean,
  otherDirs: string[],
  seq?: number,
): Promise<Loaded> {
  ensureDir(store.dir, 0o700);
  const authoredBefore =
    draft.how === "derived" && readIndex(store, draft.branch, "authored") === undefined
      ? await newestAuthored(store, draft.branch)
      : undefined;
  const lockPath = join(store.stateDir, "records.lock");
  const done = withLock(lockPath, LOCK_WAIT_MS, () => {
    const drawn = seq ?? lastSeq(store.stateDir, [store.dir, ...otherDirs]) + 1;
    const meta: Meta = { schema: store.kind.schema, seq: drawn, ...draft } as Meta;
    const base = recordName(meta, drawn).slice(0, -".md".length);
    const content = render(meta, body);
    for (let attempt = 0; ; attempt++) {
      if (attempt >= 10)
        throw new Failure(
          "internal",
          `could not find a free name for a ${store.kind.noun} in ${store.dir}`,
          "check the folder for stray files",
        );
      if (attempt > 0 && seq !== undefined)
        throw new Failure(
          "internal",
          `${base}.md is taken`,
          "this should be impossible: its sequence number was drawn",
        );
      const file = attempt === 0 ? `${base}.md` : `${base}-${randomHex(4)}.md`;
      if (lstatSync(join(store.dir, file), { throwIfNoEntry: false })) continue;
      // The index first: a crash between the two leaves an index naming a missing file (the folder is read), never
      // one hiding a newer record.
      pointIndexes(store, meta, { file, created_at: meta.created_at, seq: drawn }, authoredBefore);
      if (!publishNew(join(store.dir, file), content, 0o600)) continue;
      if (seq === undefined) writeFileAtomic(join(store.stateDir, SEQ_FILE), `${drawn}\n`, 0o600, { durable: false });
      return { path: join(store.dir, file), file, meta, body };
    }
  });
  if (!done.acquired)
    throw new Failure("refused", `the records lock ${lockPath} is held by another majordomus`, "retry in a moment");
  return done.value;
}

export async function readAll(
  store: Store,
): Promise<Array<{ file: string; path: string; parsed: Awaited<ReturnType<typeof readRecord>> }>> {
  const out = [];
  for (const file of listNames(store.dir)) {
    const path = join(store.dir, file);
    out.push({ file, path, parsed: await readRecord(store.kind, path, file) });
  }
  return out;
}
