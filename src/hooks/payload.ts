/**
 * A hook's stdin payload. Whatever arrives (nothing, a terminal, garbage, binary, megabytes), the
 * reader returns an answer and never throws: the event boundary is drawn with or without it.
 */
import { readSync } from "node:fs";
import { stdinIsTerminal } from "../lib/stdin.ts";

/** Payloads are small JSON objects; anything past this is not read (and makes the payload unusable). */
const MAX_BYTES = 1024 * 1024;

export type Payload = { data?: Record<string, unknown>; problem?: string; bytes: number };

export function readPayload(): Payload {
  if (stdinIsTerminal()) return { bytes: 0 };
  // One buffer, filled in place: a payload is almost always a single read, decoded without a copy.
  let buffer = Buffer.allocUnsafe(64 * 1024);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > MAX_BYTES) return { problem: `the payload is over ${MAX_BYTES} bytes; not read`, bytes: total };
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_BYTES + 1));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    let n: number;
    try {
      n = readSync(0, buffer, total, buffer.length - total, null);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EAGAIN") continue;
      if (code === "EOF" || code === "EBADF" || code === "ENXIO") break;
      return { problem: `stdin could not be read: ${(err as Error).message}`, bytes: total };
    }
    if (n === 0) break;
    total += n;
  }
  if (total > MAX_BYTES) return { problem: `the payload is over ${MAX_BYTES} bytes; not read`, bytes: total };
  if (total === 0) return { bytes: 0 };
  return parsePayload(buffer.toString("utf8", 0, total), total);
}

/** A payload's text as the hook reads it (stdin, or a captured payload replayed in process). */
export function parsePayload(text: string, bytes = Buffer.byteLength(text)): Payload {
  if (text.includes("\u0000") || text.includes("\ufffd")) return { problem: "the payload is not UTF-8 text", bytes };
  try {
    const data = JSON.parse(text);
    if (data === null || typeof data !== "object" || Array.isArray(data))
      return { problem: "the payload is JSON but not an object", bytes };
    return { data: data as Record<string, unknown>, bytes };
  } catch (err) {
    return { problem: `the payload is not JSON (${(err as Error).message.split("\n")[0]})`, bytes };
  }
}

/** A provider-supplied identifier fit to store: printable, bounded; anything else is dropped. */
export function cleanId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > 200 || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  return value;
}
