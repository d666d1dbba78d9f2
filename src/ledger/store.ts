/**
 * The ledger file: `<state>/ledger.jsonl`, append-only JSON lines, written only by majordomus.
 *
 * Concurrency: every append is ONE write(2) of one whole line on a descriptor opened with
 * O_APPEND, made while holding the ledger lock. O_APPEND alone already keeps lines whole on a
 * local filesystem; the lock is what keeps `history --rotate` from losing a line appended while
 * it copies. An append that cannot get the lock within APPEND_WAIT_MS still writes (a hook must
 * not hang) and says so on stderr.
 *
 * Order: line order is the ledger's total order. It never depends on file times or on two
 * events sharing a timestamp.
 */
import { closeSync, fstatSync, ftruncateSync, readSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { ensureDir, openAppend, readIfExists } from "../lib/fsx.ts";
import { openLayerFile } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import { WRITER } from "../lib/version.ts";
import { pacedCollector } from "../lib/runtime.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import type { Position } from "../repo/where.ts";
import { eventRegistry, type EventSpec } from "./events.ts";
import { ENVELOPE_KEYS, parseLine, type Entry, type Parsed } from "./line.ts";

export const LEDGER_FILE = "ledger.jsonl";
/** How long an append waits for the lock before writing anyway (a rotation in progress). */
const APPEND_WAIT_MS = 2_000;
/**
 * A line longer than this is refused: payloads are facts and references, never documents. A
 * reader meets a longer one only in a ledger majordomus did not write (a stranger's): it is
 * malformed, passed over without being held or decoded (a 30 MB line had held a start hook for
 * 0.7 s and 166 MB), and said as such.
 */
const MAX_LINE_BYTES = 256 * 1024;

/** The malformed row of a line longer than MAX_LINE_BYTES: none of its text is kept. */
const tooLong = (): Parsed => ({ ok: false, reason: `longer than ${MAX_LINE_BYTES} bytes`, text: "" });

export type Ledger = { path: string; lock: string };

export function ledgerOf(layer: Layer): Ledger {
  const path = join(sectionPath(layer, "state"), LEDGER_FILE);
  return { path, lock: `${path}.lock` };
}

/**
 * The part of the workspace (`ws`) an append needs, named here because the ledger sits below the
 * workspace: where the ledger is, the position a line is stamped with, and `episodeId`, the
 * episode it is stamped with (its `session` field).
 */
export type AppendContext = { ledger: Ledger; position: Pick<Position, "head" | "branch">; episodeId?: string };

async function checkedLine(ws: AppendContext, event: string, payload: Record<string, unknown>): Promise<string> {
  return lineWith(await eventRegistry(), ws, event, payload);
}

function lineWith(
  registry: Map<string, EventSpec>,
  ws: AppendContext,
  event: string,
  payload: Record<string, unknown>,
): string {
  const spec = registry.get(event);
  if (!spec)
    throw new Failure(
      "internal",
      `ledger event "${event}" is not registered in share/events.yaml`,
      "register the event before writing it",
    );
  for (const key of Object.keys(payload)) {
    if ((ENVELOPE_KEYS as readonly string[]).includes(key)) {
      throw new Failure(
        "internal",
        `ledger payload for "${event}" sets "${key}", which is an envelope key`,
        "rename the payload field; ts, event, head, branch, by and session belong to the envelope",
      );
    }
  }
  for (const key of spec.requires) {
    if (payload[key] === undefined)
      throw new Failure(
        "internal",
        `ledger payload for "${event}" lacks required field "${key}"`,
        "see share/events.yaml for what the event requires",
      );
  }
  const envelope: Record<string, unknown> = {
    ts: stamp(),
    event,
    head: ws.position.head,
    branch: ws.position.branch,
    by: WRITER,
  };
  if (ws.episodeId) envelope.session = ws.episodeId;
  const line = `${JSON.stringify({ ...envelope, ...payload })}\n`;
  if (Buffer.byteLength(line) > MAX_LINE_BYTES)
    throw new Failure(
      "internal",
      `ledger line for "${event}" is over ${MAX_LINE_BYTES} bytes`,
      "put large content in a record file and reference its path",
    );
  return line;
}

/**
 * One whole line or nothing: a short write (a full disk) is cut back off the file, so a torn line
 * never stays to glue the next append to it.
 */
function writeLine(path: string, line: string): void {
  const fd = openAppend(path, { create: true, mode: 0o600 });
  const before = fstatSync(fd).size;
  try {
    const data = Buffer.from(line, "utf8");
    let written = 0;
    try {
      written = writeSync(fd, data, 0, data.length);
    } catch (err) {
      ftruncateQuiet(fd, before);
      throw err;
    }
    if (written !== data.length) {
      ftruncateQuiet(fd, before);
      throw new Failure(
        "internal",
        `short write to ${path} (${written} of ${data.length} bytes); the partial line was removed`,
        "free some disk space",
      );
    }
  } finally {
    closeSync(fd);
  }
}

function ftruncateQuiet(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
  } catch {
    // nothing more can be done on this disk
  }
}

/** Append one event; returns the line written (without its newline). */
export async function appendEvent(ws: AppendContext, event: string, payload: Record<string, unknown>): Promise<string> {
  return appendPrepared(ws, await checkedLine(ws, event, payload));
}

/**
 * A maker of checked lines that needs no more waiting: for a writer that decides a line's payload
 * inside a lock of its own and appends it there, synchronously (`appendPrepared`).
 */
export async function lineMaker(
  ws: AppendContext,
): Promise<(event: string, payload: Record<string, unknown>) => string> {
  const registry = await eventRegistry();
  return (event, payload) => lineWith(registry, ws, event, payload);
}

/** Append a line `prepareEvent` made; returns it without its newline. */
export function appendPrepared(ws: AppendContext, line: string): string {
  ensureDir(dirname(ws.ledger.path), 0o700);
  const locked = withLock(ws.ledger.lock, APPEND_WAIT_MS, () => writeLine(ws.ledger.path, line));
  if (!locked.acquired) {
    log.warn(`ledger lock ${ws.ledger.lock} held for over ${APPEND_WAIT_MS} ms; appending without it`);
    writeLine(ws.ledger.path, line);
  }
  return line.slice(0, -1);
}

/** The whole ledger text, or "" when it does not exist yet. */
export function readLedgerText(path: string): string {
  return readIfExists(path) ?? "";
}

export function ledgerSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Forward reads take this much at a time, into one buffer: memory stays flat however long the ledger is. */
const FORWARD_CHUNK = 1024 * 1024;

export type Row = Parsed & { line: number; end: number };

/** One parsed line (bytes `start` to `stop` of `data`) with where it sits (the parsed value is fresh: it is completed, not copied). */
function row(data: Buffer, start: number, stop: number, line: number, end: number): Row {
  const parsed = (stop - start > MAX_LINE_BYTES ? tooLong() : parseLine(data.toString("utf8", start, stop))) as Row;
  parsed.line = line;
  parsed.end = end;
  return parsed;
}

/**
 * Every line of the ledger, parsed (an empty one comes back malformed), oldest first, with its 1-based number,
 * read a chunk at a time (for the readers that must see all of it: validation, doctor). `from`
 * resumes at a byte offset where a line starts, counting lines on from `line`; each row says
 * where its line ends (`end`, past its newline; a last line without one ends at the file's end).
 * The chunks are read into one buffer, an unfinished line moved to its front: a ledger of tens of
 * megabytes allocates no buffer per chunk (that and joining chunks were a tenth of doctor's pass).
 */
export function* oldestFirst(
  path: string,
  from: { offset: number; line: number } = { offset: 0, line: 0 },
): Generator<Row> {
  const fd = openIfExists(path);
  if (fd === undefined) return;
  try {
    const size = fstatSync(fd).size;
    let position = from.offset;
    let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(FORWARD_CHUNK, size - position)));
    // `held`: the bytes of an unfinished line at the buffer's front; `base`: the file offset of its first byte.
    let held = 0;
    let base = position;
    let line = from.line;
    // Within a line longer than MAX_LINE_BYTES: its bytes are passed over up to its newline.
    let skipping = false;
    // Each chunk's lines are garbage once read: collected as the read goes, not in one heap at the end.
    const collect = pacedCollector(1);
    while (position < size) {
      collect();
      if (held === buffer.length) {
        if (held > MAX_LINE_BYTES) {
          skipping = true;
          base += held;
          held = 0;
        } else {
          // A line longer than the buffer: it grows, and stays grown for the lines after.
          const grown = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(grown, 0, 0, held);
          buffer = grown;
        }
      }
      const want = Math.min(buffer.length - held, size - position);
      readInto(fd, buffer, held, want, position);
      position += want;
      const data = buffer.subarray(0, held + want);
      let start = 0;
      if (skipping) {
        const nl = data.indexOf(0x0a);
        if (nl === -1) {
          base += data.length;
          held = 0;
          continue;
        }
        skipping = false;
        line++;
        yield Object.assign(tooLong(), { line, end: base + nl + 1 });
        start = nl + 1;
      }
      for (let nl = data.indexOf(0x0a, start); nl !== -1; nl = data.indexOf(0x0a, start)) {
        line++;
        yield row(data, start, nl, line, base + nl + 1);
        start = nl + 1;
      }
      buffer.copyWithin(0, start, data.length);
      held = data.length - start;
      base += start;
    }
    if (skipping) yield Object.assign(tooLong(), { line: line + 1, end: size });
    else if (held > 0) yield row(buffer, 0, held, line + 1, size);
  } finally {
    closeSync(fd);
  }
}

/** The bytes of the ledger in [start, end), or undefined when it is shorter (for a reader that checks it is the file it read before). */
export function ledgerBytes(path: string, start: number, end: number): Buffer | undefined {
  const fd = openIfExists(path);
  if (fd === undefined) return undefined;
  try {
    if (fstatSync(fd).size < end) return undefined;
    return readAt(fd, end - start, start);
  } finally {
    closeSync(fd);
  }
}

/** First read from the end; doubles up to MAX_CHUNK while lines are longer than what was read. */
const FIRST_CHUNK = 8 * 1024;
const MAX_CHUNK = 1024 * 1024;

/**
 * Lines from the end of the ledger backwards, newest first, reading only as much of the file as
 * the caller consumes: `history --limit 5` on a long ledger reads one small chunk. Newlines are
 * found with the native lastIndexOf, not a JavaScript loop over every byte.
 *
 * `about`: only the lines whose text holds it (an id: plain ASCII, which the writer's JSON never
 * escapes) are decoded and parsed; the others are passed over by a native search of each chunk.
 * A reader of one episode's lines across a long ledger parses those lines alone.
 */
export function* newestFirst(path: string, about?: string): Generator<Parsed> {
  const fd = openIfExists(path);
  if (fd === undefined) return;
  const needle = about !== undefined && about !== "" && !about.includes("\n") ? Buffer.from(about) : undefined;
  try {
    let position = fstatSync(fd).size;
    let carry: Buffer = Buffer.alloc(0);
    let chunkSize = FIRST_CHUNK;
    // Within a line longer than MAX_LINE_BYTES: its bytes are passed over back to the newline before it.
    let skipping = false;
    while (position > 0) {
      const size = Math.min(chunkSize, position);
      chunkSize = Math.min(chunkSize * 2, MAX_CHUNK);
      position -= size;
      const chunk = readAt(fd, size, position);
      let data = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      if (skipping) {
        const last = chunk.lastIndexOf(0x0a);
        if (last === -1) continue;
        // The long line begins after this newline; the bytes before it are the lines before.
        skipping = false;
        data = chunk.subarray(0, last);
      }
      // The lines after the chunk's first newline are whole; what is before it goes on in the chunk before.
      const first = data.indexOf(0x0a);
      const from = first === -1 ? data.length : first + 1;
      yield* needle ? linesHolding(data, from, needle) : lines(data, from);
      carry = data.subarray(0, first === -1 ? data.length : first);
      if (carry.length > MAX_LINE_BYTES) {
        // Read about an episode, a line nobody could have written is passed over unsaid.
        if (!needle) yield tooLong();
        skipping = true;
        carry = Buffer.alloc(0);
      }
    }
    if (carry.length > 0 && (!needle || carry.includes(needle))) yield parseLine(carry.toString("utf8"));
  } finally {
    closeSync(fd);
  }
}

/** The lines of `data` from `from` to its end, newest first (blank ones passed over). */
function* lines(data: Buffer, from: number): Generator<Parsed> {
  let end = data.length;
  while (end > from) {
    const nl = data.lastIndexOf(0x0a, end - 1);
    const start = nl < from ? from : nl + 1;
    if (end - start > MAX_LINE_BYTES) yield tooLong();
    else if (start < end) yield parseLine(data.toString("utf8", start, end));
    end = start - 1;
  }
}

/** The lines of `data` from `from` to its end that hold `needle`, newest first. */
function* linesHolding(data: Buffer, from: number, needle: Buffer): Generator<Parsed> {
  let end = data.length;
  while (end > from) {
    const hit = data.lastIndexOf(needle, end - 1);
    if (hit < from) return;
    const start = Math.max(from, data.lastIndexOf(0x0a, hit) + 1);
    const nl = data.indexOf(0x0a, hit);
    const stop = nl === -1 || nl > end ? end : nl;
    if (stop - start <= MAX_LINE_BYTES) yield parseLine(data.toString("utf8", start, stop));
    end = start - 1;
  }
}

/** The ledger opened to read (never through a link, only a regular file), or undefined when there is none yet. */
const openIfExists = openLayerFile;

/** Exactly `size` bytes from `position`. */
function readAt(fd: number, size: number, position: number): Buffer {
  const buffer = Buffer.alloc(size);
  readInto(fd, buffer, 0, size, position);
  return buffer;
}

/** Exactly `size` bytes from `position`, into `buffer` at `at`. */
function readInto(fd: number, buffer: Buffer, at: number, size: number, position: number): void {
  for (let read = 0; read < size;) {
    const n = readSync(fd, buffer, at + read, size - read, position + read);
    if (n === 0) throw new Failure("internal", "ledger shrank while being read", "retry the command");
    read += n;
  }
}

export type { Entry };
