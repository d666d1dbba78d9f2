/**
 * The ledger, `<state>/ledger.jsonl`: append-only JSON lines. Each append is one write(2) of a whole line with
 * O_APPEND under the ledger lock (the lock keeps `history --rotate` from losing a line while it copies); one that
 * waits past APPEND_WAIT_MS writes anyway and says so. Line order is the total order, never file times.
 */
import { closeSync, fstatSync, ftruncateSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { ensureDir, openAppend } from "../lib/fsx.ts";
import { readLayerFileIfExists } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import { WRITER } from "../lib/version.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import type { Position } from "../repo/where.ts";
import { eventRegistry, type EventSpec } from "./events.ts";
import { ENVELOPE_KEYS, type Entry } from "./line.ts";
import { MAX_LINE_BYTES } from "./read.ts";

export { ledgerBytes, newestFirst, oldestFirst, type Row } from "./read.ts";

export const LEDGER_FILE = "ledger.jsonl";
const APPEND_WAIT_MS = 2_000;
export type Ledger = { path: string; lock: string };

export function ledgerOf(layer: Layer): Ledger {
  const path = join(sectionPath(layer, "state"), LEDGER_FILE);
  return { path, lock: `${path}.lock` };
}

/** The part of the workspace an append needs (the ledger sits below the workspace). */
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

/** One whole line or nothing: a short write (a full disk) is cut back off, so no torn line glues onto the next. */
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
  } catch {}
}

export async function appendEvent(ws: AppendContext, event: string, payload: Record<string, unknown>): Promise<string> {
  return appendPrepared(ws, await checkedLine(ws, event, payload));
}

/** Checked lines made ahead, for a writer that appends inside a lock of its own (`appendPrepared`). */
export async function lineMaker(
  ws: AppendContext,
): Promise<(event: string, payload: Record<string, unknown>) => string> {
  const registry = await eventRegistry();
  return (event, payload) => lineWith(registry, ws, event, payload);
}

export function appendPrepared(ws: AppendContext, line: string): string {
  ensureDir(dirname(ws.ledger.path), 0o700);
  const locked = withLock(ws.ledger.lock, APPEND_WAIT_MS, () => writeLine(ws.ledger.path, line));
  if (!locked.acquired) {
    log.warn(`ledger lock ${ws.ledger.lock} held for over ${APPEND_WAIT_MS} ms; appending without it`);
    writeLine(ws.ledger.path, line);
  }
  return line.slice(0, -1);
}

export function readLedgerText(path: string): string {
  return readLayerFileIfExists(path) ?? "";
}

export function ledgerSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export type { Entry };
