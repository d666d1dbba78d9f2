/**
 * For a client whose compaction event is advisory (it fires on every check, and nothing follows a
 * real compression: Gemini's PreCompress): whether the client has compressed its history since the
 * episode's last compression checkpoint, read from the client's own transcript. Gemini writes the
 * compressed history back with one user message holding its `<state_snapshot>`; each compression
 * is a new such message. A checkpoint is derived once per new one: never once per turn.
 */
import { closeSync, readSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "../lib/runtime.ts";
import { ensureDir, writeFileAtomic } from "../lib/fsx.ts";
import { openRegular, readPlain } from "../lib/safe-read.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { newestFirst } from "../ledger/store.ts";
import { sectionPath } from "../layer/manifest.ts";
import { pick } from "../providers/index.ts";
import type { Payload } from "./payload.ts";

/** How far back the episode's own compression checkpoints are looked for (the newest matter). */
const SCAN_LIMIT = 20_000;
/** What follows a snapshot message's timestamp; the message's id is read just before it. */
const SNAPSHOT = '","type":"user","content":[{"text":"<state_snapshot>';
const SNAPSHOT_BYTES = Buffer.from(SNAPSHOT);
const ID_BEFORE = /"id":"([^"]+)","timestamp":"[^"]*$/;
/** How much before a snapshot's marker its id is looked for, and so how far each read reaches back. */
const BEFORE = 512;
const CHUNK = 4 * 1024 * 1024;

/** What was read of a transcript last time: the file, how far, and the snapshot messages found. */
type Scan = { dev: number; ino: number; to: number; ids: string[] };

/** The snapshot ids in `buffer[0, n)`, each marker's id read from the BEFORE bytes in front of it. */
function idsIn(buffer: Buffer, n: number, from: number, ids: Set<string>): void {
  const view = buffer.subarray(0, n);
  for (
    let at = view.indexOf(SNAPSHOT_BYTES, from);
    at !== -1;
    at = view.indexOf(SNAPSHOT_BYTES, at + SNAPSHOT_BYTES.length)
  ) {
    const id = ID_BEFORE.exec(view.toString("utf8", Math.max(0, at - BEFORE), at))?.[1];
    if (id) ids.add(id);
  }
}

/**
 * Scan the open transcript from `scan` on (or from its start): in chunks, each reaching BEFORE
 * bytes back, so memory stays one chunk whatever the file's size, and a turn reads only what the
 * client appended since the last.
 */
function scanFrom(fd: number, size: number, scan: Scan): Scan {
  const ids = new Set(scan.ids);
  const buffer = Buffer.allocUnsafe(CHUNK + BEFORE + SNAPSHOT_BYTES.length);
  for (let at = Math.max(0, scan.to - BEFORE - SNAPSHOT_BYTES.length); at < size;) {
    const n = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (n <= 0) break;
    idsIn(buffer, n, 0, ids);
    // The next chunk begins far enough back for a marker across the two, and the id in front of it.
    if (at + n >= size) break;
    at += n - BEFORE - SNAPSHOT_BYTES.length;
  }
  return { ...scan, to: size, ids: [...ids] };
}

/**
 * The compressions the client's transcript shows (distinct snapshot messages), or undefined when it
 * cannot be read. `memory`: a folder of the local half where what was read is kept between turns
 * (this event fires on every check: a 300 MB transcript must not be read whole each time).
 */
export function compressionsIn(payload: Payload, memory?: string): number | undefined {
  const path = pick(payload.data, ["transcript_path"]);
  if (!path || !path.endsWith(".jsonl")) return undefined;
  // The client's own file, never through a link, and only a regular file.
  let opened: ReturnType<typeof openRegular>;
  try {
    opened = openRegular(path);
  } catch {
    return undefined;
  }
  if (!opened) return undefined;
  const { fd, stats } = opened;
  try {
    const file = { dev: Number(stats.dev), ino: Number(stats.ino) };
    const kept = memory === undefined ? undefined : join(memory, `${createHash("sha256", path).slice(0, 32)}.json`);
    const before = kept === undefined ? undefined : parseScan(readPlain(kept));
    // The same file, not cut short: go on from where the last turn stopped; otherwise from its start.
    const start =
      before && before.dev === file.dev && before.ino === file.ino && before.to <= Number(stats.size)
        ? before
        : { ...file, to: 0, ids: [] };
    const scan = start.to === Number(stats.size) ? start : scanFrom(fd, Number(stats.size), start);
    if (kept && scan !== before) {
      ensureDir(memory!, 0o700);
      writeFileAtomic(kept, `${JSON.stringify(scan)}\n`, 0o600);
    }
    return scan.ids.length;
  } finally {
    closeSync(fd);
  }
}

function parseScan(text: string | undefined): Scan | undefined {
  if (text === undefined) return undefined;
  try {
    const s = JSON.parse(text) as Scan;
    return typeof s.dev === "number" &&
      typeof s.ino === "number" &&
      typeof s.to === "number" &&
      Array.isArray(s.ids) &&
      s.ids.every((i) => typeof i === "string")
      ? s
      : undefined;
  } catch {
    return undefined;
  }
}

/** Where the compression scans are kept: the local half's cache. */
export function scanMemory(ws: Workspace): string | undefined {
  return ws.layer.manifest.sections.cache === undefined
    ? undefined
    : join(sectionPath(ws.layer, "cache"), "compressions");
}

/**
 * The compressions this client session's checkpoints already answered: the highest `compressions`
 * count on a checkpoint of any of its episodes (a resumed session is a new episode of the same
 * transcript, whose earlier compressions were answered by the episode before).
 */
export function compressionsAnswered(ws: Workspace, providerSession: string): number {
  const answered = new Map<string, number>();
  const mine = new Set<string>();
  let read = 0;
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (++read > SCAN_LIMIT) break;
    if (!parsed.ok) continue;
    const e = parsed.entry;
    if (e.event === "task.checkpoint" && typeof e.compressions === "number" && e.session)
      answered.set(e.session, Math.max(answered.get(e.session) ?? 0, e.compressions));
    if (e.event === "session.started" && e.provider_session === providerSession && typeof e.session_id === "string") {
      mine.add(e.session_id);
      // Counts only grow: the newest episode of this session that answered one holds the highest
      // (its checkpoints are newer than its start, so all were read). Nothing older can change it.
      if (answered.has(e.session_id)) break;
    }
  }
  return Math.max(0, ...[...answered].filter(([session]) => mine.has(session)).map(([, n]) => n));
}

/** A compression the episode has not answered yet: the client's count to record with its checkpoint, or undefined. */
export function newCompression(
  ws: Workspace,
  payload: Payload,
  providerSession: string | undefined,
): number | undefined {
  const seen = compressionsIn(payload, scanMemory(ws));
  if (seen === undefined || seen === 0 || providerSession === undefined) return undefined;
  return seen > compressionsAnswered(ws, providerSession) ? seen : undefined;
}
