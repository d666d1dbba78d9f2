/**
 * A short exclusive lock between processes: a lock file that appears whole (linked into place) naming its holder
 * (holder.ts). A holder that cannot be shown alive is broken safely, so a crash never wedges the next writer. node:fs
 * has no flock; this works alike on every runtime and system.
 */
import { readPlain } from "./safe-read.ts";
import { statSync } from "node:fs";
import { publishNew, unlinkQuiet } from "./fsx.ts";
import { alive, formatHolder, me, parseHolder, type Holder } from "./holder.ts";

/** A SharedArrayBuffer costs ~1 ms; most locks are free at once. */
let pause: Int32Array | undefined;

/** How long a lock naming no holder may be someone's half-written file. */
const UNNAMED_GRACE_MS = 1_000;

function sleepMs(ms: number): void {
  pause ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pause, 0, 0, ms);
}

type Seen = { text: string; holder?: Holder; ageMs: number } | undefined;

function look(path: string): Seen {
  try {
    const text = readPlain(path);
    if (text === undefined) return undefined;
    const ageMs = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    return { text, holder: parseHolder(text), ageMs };
  } catch {
    return undefined;
  }
}

export function lockState(path: string): { state: "held" | "stale" | "free"; holder?: Holder } {
  const seen = look(path);
  if (!seen) return { state: "free" };
  return { state: stale(seen) ? "stale" : "held", holder: seen.holder };
}

function stale(seen: NonNullable<Seen>): boolean {
  if (!seen.holder) return seen.ageMs > UNNAMED_GRACE_MS;
  return !alive(seen.holder);
}

/** Broken under a breaker lock and read again inside it, so a waiter never removes the lock another just took. */
function breakStale(path: string, judged: string): void {
  const breaker = `${path}.break`;
  if (!tryAcquire(breaker)) {
    const other = look(breaker);
    if (other && stale(other)) unlinkQuiet(breaker);
    return;
  }
  try {
    if (look(path)?.text === judged) unlinkQuiet(path);
  } finally {
    unlinkQuiet(breaker);
  }
}

function tryAcquire(path: string): boolean {
  return publishNew(path, `${formatHolder(me())}\n`, 0o600, { durable: false });
}

/** Gives up after `waitMs` without running `work`: a hook decides what "could not lock" means. */
export function withLock<T>(
  path: string,
  waitMs: number,
  work: () => T,
): { acquired: true; value: T } | { acquired: false } {
  const deadline = Date.now() + waitMs;
  let delay = 1;
  while (!tryAcquire(path)) {
    const seen = look(path);
    if (seen && stale(seen)) {
      breakStale(path, seen.text);
      continue;
    }
    if (Date.now() >= deadline) return { acquired: false };
    sleepMs(delay);
    delay = Math.min(delay * 2, 16);
  }
  try {
    return { acquired: true, value: work() };
  } finally {
    unlinkQuiet(path);
  }
}
