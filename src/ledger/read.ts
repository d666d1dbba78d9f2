/** Reading the ledger: forward in one reused buffer (validation, doctor), or backward as far as the caller reads. */
import { closeSync, fstatSync, readSync } from "node:fs";
import { openLayerFile } from "../lib/safe-read.ts";
import { Failure } from "../lib/failure.ts";
import { pacedCollector } from "../lib/runtime.ts";
import { parseLine, type Entry, type Parsed } from "./line.ts";

/**
 * A longer line is refused, and one met in a stranger's ledger is passed over without being held (a 30 MB line had
 * held a start hook for 0.7 s and 166 MB).
 */
export const MAX_LINE_BYTES = 256 * 1024;

const tooLong = (): Parsed => ({ ok: false, reason: `longer than ${MAX_LINE_BYTES} bytes`, text: "" });

const FORWARD_CHUNK = 1024 * 1024;

export type Row = Parsed & { line: number; end: number };

function row(data: Buffer, start: number, stop: number, line: number, end: number): Row {
  const parsed = (stop - start > MAX_LINE_BYTES ? tooLong() : parseLine(data.toString("utf8", start, stop))) as Row;
  parsed.line = line;
  parsed.end = end;
  return parsed;
}

/**
 * Every line parsed, oldest first, with its number and where it ends, for readers that must see all of it. `from`
 * resumes at a byte offset. One reused buffer: per-chunk buffers and joins were a tenth of doctor's pass.
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
    let held = 0;
    let base = position;
    let line = from.line;
    let skipping = false;
    const collect = pacedCollector(1);
    while (position < size) {
      collect();
      if (held === buffer.length) {
        if (held > MAX_LINE_BYTES) {
          skipping = true;
          base += held;
          held = 0;
        } else {
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

const FIRST_CHUNK = 8 * 1024;
const MAX_CHUNK = 1024 * 1024;

/**
 * Lines from the end backwards, reading only what the caller consumes. `about`: only lines holding it (an ASCII id)
 * are decoded and parsed; the rest are passed over by a native search.
 */
export function* newestFirst(path: string, about?: string): Generator<Parsed> {
  const fd = openIfExists(path);
  if (fd === undefined) return;
  const needle = about !== undefined && about !== "" && !about.includes("\n") ? Buffer.from(about) : undefined;
  try {
    let position = fstatSync(fd).size;
    let carry: Buffer = Buffer.alloc(0);
    let chunkSize = FIRST_CHUNK;
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
        skipping = false;
        data = chunk.subarray(0, last);
      }
      const first = data.indexOf(0x0a);
      const from = first === -1 ? data.length : first + 1;
      yield* needle ? linesHolding(data, from, needle) : lines(data, from);
      carry = data.subarray(0, first === -1 ? data.length : first);
      if (carry.length > MAX_LINE_BYTES) {
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

const openIfExists = openLayerFile;

function readAt(fd: number, size: number, position: number): Buffer {
  const buffer = Buffer.alloc(size);
  readInto(fd, buffer, 0, size, position);
  return buffer;
}

function readInto(fd: number, buffer: Buffer, at: number, size: number, position: number): void {
  for (let read = 0; read < size;) {
    const n = readSync(fd, buffer, at + read, size - read, position + read);
    if (n === 0) throw new Failure("internal", "ledger shrank while being read", "retry the command");
    read += n;
  }
}

/**
 * An episode's own lines back to its start, oldest first; only lines naming it are parsed, so a long ledger is
 * passed over natively.
 */
export function episodeEntries(ledgerPath: string, episodeId: string): Entry[] {
  const out: Entry[] = [];
  for (const parsed of newestFirst(ledgerPath, episodeId)) {
    if (!parsed.ok) continue;
    if (parsed.entry.session === episodeId) out.push(parsed.entry);
    if (parsed.entry.event === "session.started" && parsed.entry.session_id === episodeId) break;
  }
  return out.reverse();
}
