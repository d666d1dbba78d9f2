/**
 * A short-lived exclusive lock between processes of this machine: a lock file that appears whole
 * (written beside it, then linked into place, so it is never empty) and names its holder (see
 * holder.ts: pid, and on Linux the boot and the process's start time). A holder that cannot be
 * shown alive (died mid-write, a reused pid, a container that has ended, or a file that names no
 * holder at all) is broken safely, so a crash never wedges the next writer. There is no advisory
 * flock in node:fs, and this works the same under Bun, Deno and Node, on Linux, macOS and Windows.
 */
import { readFileSync, statSync } from "node:fs";
import { publishNew, unlinkQuiet } from "./fsx.ts";
import { alive, formatHolder, me, parseHolder, type Holder } from "./holder.ts";

/** Made on the first wait: creating a SharedArrayBuffer costs about a millisecond, and most locks are free at once. */
let pause: Int32Array | undefined;

/** A lock file that names no holder is someone's half-written file only this long (older writers wrote the pid after creating it). */
const UNNAMED_GRACE_MS = 1_000;

function sleepMs(ms: number): void {
  pause ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pause, 0, 0, ms);
}

type Seen = { text: string; holder?: Holder; ageMs: number } | undefined;

function look(path: string): Seen {
  try {
    const text = readFileSync(path, "utf8");
    const ageMs = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    return { text, holder: parseHolder(text), ageMs };
  } catch {
    return undefined;
  }
}

/** The state of a lock file, for `doctor`: held by a live process, stale (breakable), or gone. */
export function lockState(path: string): { state: "held" | "stale" | "free"; holder?: Holder } {
  const seen = look(path);
  if (!seen) return { state: "free" };
  return { state: stale(seen) ? "stale" : "held", holder: seen.holder };
}

function stale(seen: NonNullable<Seen>): boolean {
  if (!seen.holder) return seen.ageMs > UNNAMED_GRACE_MS;
  return !alive(seen.holder);
}

/**
 * Remove a lock whose holder is gone. Two waiters may both see it; the second must not remove the
 * lock the first one has taken since. So breaking is itself done under a breaker lock, and the
 * file is read again inside it: it goes only if it still says what was judged stale.
 */
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

/**
 * Run `work` holding the lock at `path`. Gives up after `waitMs` and returns `{ acquired: false }`
 * without running it, so a caller on a hook path decides for itself what "could not lock" means.
 */
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
