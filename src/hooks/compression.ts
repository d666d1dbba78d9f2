/**
 * For an advisory compaction event (Gemini's PreCompress fires on every check): how many compressions the client's
 * transcript shows, each a user message holding `<state_snapshot>`. A checkpoint is derived once per new one, never
 * per turn.
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

const SCAN_LIMIT = 20_000;
const SNAPSHOT = '","type":"user","content":[{"text":"<state_snapshot>';
const SNAPSHOT_BYTES = Buffer.from(SNAPSHOT);
const ID_BEFORE = /"id":"([^"]+)","timestamp":"[^"]*$/;
const BEFORE = 512;
const CHUNK = 4 * 1024 * 1024;

type Scan = { dev: number; ino: number; to: number; ids: string[] };

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

/** Scan from where the last turn stopped, in chunks reaching BEFORE bytes back: a turn reads only what was appended. */
function scanFrom(fd: number, size: number, scan: Scan): Scan {
  const ids = new Set(scan.ids);
  const buffer = Buffer.allocUnsafe(CHUNK + BEFORE + SNAPSHOT_BYTES.length);
  for (let at = Math.max(0, scan.to - BEFORE - SNAPSHOT_BYTES.length); at < size;) {
    const n = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (n <= 0) break;
    idsIn(buffer, n, 0, ids);
    if (at + n >= size) break;
    at += n - BEFORE - SNAPSHOT_BYTES.length;
  }
  return { ...scan, to: size, ids: [...ids] };
}

/**
 * The compressions the transcript shows, or undefined when it cannot be read. `memory` keeps what was read between
 * turns: a 300 MB transcript must not be read whole each check.
 */
export function compressionsIn(payload: Payload, memory?: string): number | undefined {
  const path = pick(payload.data, ["transcript_path"]);
  if (!path || !path.endsWith(".jsonl")) return undefined;
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

export function scanMemory(ws: Workspace): string | undefined {
  return ws.layer.manifest.sections.cache === undefined
    ? undefined
    : join(sectionPath(ws.layer, "cache"), "compressions");
}

/** The highest `compressions` on a checkpoint of any episode of this client session (a resume is a new episode). */
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
      if (answered.has(e.session_id)) break;
    }
  }
  return Math.max(0, ...[...answered].filter(([session]) => mine.has(session)).map(([, n]) => n));
}

export function newCompression(
  ws: Workspace,
  payload: Payload,
  providerSession: string | undefined,
): number | undefined {
  const seen = compressionsIn(payload, scanMemory(ws));
  if (seen === undefined || seen === 0 || providerSession === undefined) return undefined;
  return seen > compressionsAnswered(ws, providerSession) ? seen : undefined;
}
