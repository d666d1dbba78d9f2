/**
 * A short-lived exclusive lock between processes of this machine: a lock file created with
 * O_EXCL that names its holder's pid. A holder that died (killed mid-write) is detected by its
 * pid no longer existing, so a crash never wedges the next writer. There is no advisory flock in
 * node:fs, and this works the same under Bun, Deno and Node, on Linux, macOS and Windows.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { errnoCode } from "./failure.ts";
import { unlinkQuiet } from "./fsx.ts";

const pause = new Int32Array(new SharedArrayBuffer(4));

function sleepMs(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** The holder's pid, or undefined while the file is missing or still being written. */
function holderOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === "EPERM";
  }
}

/**
 * Remove a lock whose holder died. Two waiters may both see the dead holder; the second must
 * not remove the lock the first one has taken since. So breaking is itself done under a
 * breaker lock, and the holder is read again inside it.
 */
function breakStale(path: string, deadPid: number): void {
  const breaker = `${path}.break`;
  if (!tryAcquire(breaker)) {
    const other = holderOf(breaker);
    if (other !== undefined && !pidAlive(other)) unlinkQuiet(breaker);
    return;
  }
  try {
    if (holderOf(path) === deadPid) unlinkQuiet(path);
  } finally {
    unlinkQuiet(breaker);
  }
}

function tryAcquire(path: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if (errnoCode(err) === "EEXIST") return false;
    throw err;
  }
}

/**
 * Run `work` holding the lock at `path`. Gives up after `waitMs` and returns `{ acquired: false }`
 * without running it, so a caller on a hook path decides for itself what "could not lock" means.
 */
export function withLock<T>(path: string, waitMs: number, work: () => T): { acquired: true; value: T } | { acquired: false } {
  const deadline = Date.now() + waitMs;
  let delay = 1;
  while (!tryAcquire(path)) {
    const holder = holderOf(path);
    if (holder !== undefined && !pidAlive(holder)) {
      breakStale(path, holder);
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
