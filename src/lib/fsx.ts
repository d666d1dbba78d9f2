/**
 * Filesystem primitives with the guarantees the product promises: a reader never sees a
 * half-written file (write a temp file beside the target, then rename or link), and a record
 * that must not be overwritten is published with link(2), which fails when the name exists.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  lstatSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, basename, join } from "node:path";
import { errnoCode } from "./failure.ts";
import { linkRefusal, NOFOLLOW, notAFile } from "./safe-read.ts";

/** Random hex from the global Web Crypto (loading node:crypto costs ~10 ms in a Bun binary). */
export function randomHex(bytes = 8): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

let temps = 0;

/**
 * A temp file's name: `.<name>.<pid>.<8 hex>.tmp` (the form lifecycle/sweep.ts recognises). The
 * pid and a per-process count make it unique on this machine, and it is created with O_EXCL, so it
 * needs no secret: the engine's own generator fills the rest (the first Web Crypto call costs a
 * hook ~0.2 ms to initialise).
 */
function tempPathFor(target: string): string {
  const suffix = ((((temps++ & 0xfff) << 20) | Math.floor(Math.random() * 0x100000)) >>> 0)
    .toString(16)
    .padStart(8, "0");
  return join(dirname(target), `.${basename(target)}.${process.pid}.${suffix}.tmp`);
}

/** A name tempPathFor gives, with the writer's pid as its first group. */
export const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * `durable` (the default) flushes the content to disk before the name appears, so a power loss
 * cannot leave an empty file under it. Pointers that majordomus can rebuild skip the flush: each
 * costs about a millisecond on a hook path.
 */
export type WriteOptions = {
  durable?: boolean;
  /**
   * Write the temp file here instead of beside the target (same filesystem): a writer killed
   * between the two steps then leaves its temp file in this folder, never in the target's (a
   * tracked folder must not collect them).
   */
  tempDir?: string;
};

function writeTemp(target: string, content: string | Uint8Array, mode: number, options: WriteOptions = {}): string {
  const temp = options.tempDir ? join(options.tempDir, basename(tempPathFor(target))) : tempPathFor(target);
  const fd = openSync(temp, "wx", mode);
  try {
    const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
    if (options.durable !== false) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkQuiet(temp);
    throw err;
  }
  closeSync(fd);
  // The umask may have narrowed the mode given to open(); records promise an exact mode.
  chmodSync(temp, mode);
  return temp;
}

/** Replace `target` atomically: readers see the old content or the new, never a mix. */
export function writeFileAtomic(
  target: string,
  content: string | Uint8Array,
  mode = 0o644,
  options: WriteOptions = {},
): void {
  const temp = writeTemp(target, content, mode, options);
  try {
    renameSync(temp, target);
  } catch (err) {
    unlinkQuiet(temp);
    throw err;
  }
}

/**
 * Publish `target` only if no file has that name; returns false (and writes nothing) when one
 * does. The content is complete before the name appears.
 */
export function publishNew(
  target: string,
  content: string | Uint8Array,
  mode = 0o600,
  options: WriteOptions = {},
): boolean {
  const temp = writeTemp(target, content, mode, options);
  try {
    linkSync(temp, target);
    return true;
  } catch (err) {
    if (errnoCode(err) === "EEXIST") return false;
    // Another filesystem after all: write the temp file beside the target.
    if (errnoCode(err) === "EXDEV" && options.tempDir)
      return publishNew(target, content, mode, { ...options, tempDir: undefined });
    throw err;
  } finally {
    unlinkQuiet(temp);
  }
}

/**
 * Open `path` to append, never through a symbolic link (the open fails with ELOOP instead);
 * `create` makes it with `mode` when missing. Returns the descriptor.
 */
export function openAppend(path: string, options: { create: boolean; mode?: number }): number {
  try {
    return openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | NOFOLLOW | (options.create ? constants.O_CREAT : 0),
      options.mode ?? 0o600,
    );
  } catch (err) {
    if (errnoCode(err) === "EISDIR") throw notAFile(path);
    throw err;
  }
}

/** Append `text` to `path` (created when missing), never through a symbolic link. */
export function appendText(path: string, text: string, mode = 0o600): void {
  const fd = openAppend(path, { create: true, mode });
  try {
    const data = Buffer.from(text, "utf8");
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
}

export function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone: nothing to clean up
  }
}

/**
 * Create `path` if missing. Missing parents are created with the same mode: a private folder made
 * on demand (the local half in a fresh clone) must not sit under a world-readable parent it made.
 */
export function ensureDir(path: string, mode?: number): boolean {
  let created = false;
  try {
    mkdirSync(path, { recursive: false, mode: mode ?? 0o755 });
    created = true;
  } catch (err) {
    if (errnoCode(err) === "ENOENT") {
      ensureDir(dirname(path), mode);
      return ensureDir(path, mode);
    }
    if (errnoCode(err) !== "EEXIST") throw err;
  }
  if (created && mode !== undefined) chmodSync(path, mode);
  return created;
}

/**
 * A folder inside a section of the layer (which the layer guard checked), made if missing: one
 * that is a symbolic link (a stranger's repository can track one there) is refused, never written
 * through. Returns `path`.
 */
export function layerDir(path: string, mode: number): string {
  ensureDir(path, mode);
  if (lstatSync(path).isSymbolicLink()) throw linkRefusal(path);
  return path;
}

/** A file's text, or undefined when it does not exist; any other failure is raised. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    if (errnoCode(err) === "EISDIR") throw notAFile(path);
    throw err;
  }
}

/** Whether this process may use `path` as `mode` asks (constants.W_OK, X_OK, …). */
export function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
