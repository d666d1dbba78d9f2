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
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  lstatSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { dirname, basename, join } from "node:path";
import { errnoCode, Failure } from "./failure.ts";

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

/** O_NOFOLLOW where the platform has it (not on Windows, which has no such links to fear here). */
const NOFOLLOW = (constants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0;

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

/** O_NONBLOCK where the platform has it: opening a FIFO left where a file belongs must not wait for a writer. */
const NONBLOCK = (constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;

/** A symbolic link where the layer keeps a folder or a file: `shown` is the path as the person should read it. */
export function linkRefusal(shown: string): Failure {
  return new Failure(
    "refused",
    `${shown} is a symbolic link; majordomus never reads or writes through one inside its layer`,
    "replace it with a real folder or file (`ls -l` shows where it points); nothing was written",
  );
}

/** A FIFO, a socket or a device where the layer keeps a file: refused as a link is, before anything reads it. */
export function oddRefusal(shown: string, what: string): Failure {
  return new Failure(
    "refused",
    `${shown} is ${what} where majordomus keeps a file; majordomus never reads one (it would wait for a writer)`,
    "move it away (`ls -l` shows what it is), then run `majordomus init --extend`; nothing was written",
  );
}

/**
 * A file of the layer opened to read, or undefined when it is missing: never through a symbolic
 * link (O_NOFOLLOW), never waiting on a FIFO (O_NONBLOCK), and only a regular file. A stranger's
 * repository may track a record, an index or the ledger itself as a link to /dev/zero or to the
 * person's own files; such a path is refused, never read.
 */
export function openLayerFile(path: string): number | undefined {
  return openRegular(path)?.fd;
}

/**
 * openLayerFile's work, with what fstat said of the file (its size, its change key): the one way
 * src/ opens a file to read (an architecture rule holds every other read open to it). The caller
 * closes the descriptor.
 */
export function openRegular(path: string): { fd: number; stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    if (errnoCode(err) === "ELOOP") throw linkRefusal(path);
    throw err;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw notAFile(path, stats.isDirectory() ? "a folder" : "not a regular file");
  }
  return { fd, stats };
}

/**
 * One buffer for every read of a small layer file (a record, an episode, an index), so a reader of
 * tens of thousands of records (doctor) allocates nothing per file but the text itself. A larger
 * file (doctor's own cache is megabytes) gets a buffer of its own, dropped after the read: the
 * shared one never grows past SCRATCH_BYTES.
 */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Buffer | undefined;

/**
 * The text of a file of the layer, read as openLayerFile opens it, with its fstat; a missing one
 * throws ENOENT, as readFileSync does. The size fstat gave sizes the read: a file that is not
 * growing is read in one call (asking for one byte more than it has finds its end).
 */
export function readLayerEntry(path: string, options: { maxBytes?: number } = {}): { text: string; stats: Stats } {
  const opened = openRegular(path);
  if (opened === undefined) throw Object.assign(new Error(`${path} does not exist`), { code: "ENOENT" });
  const { fd, stats } = opened;
  try {
    // A file far larger than its kind ever is (a record a stranger's repository tracks at 500 MB) is named, not read into memory.
    if (options.maxBytes !== undefined && Number(stats.size) > options.maxBytes)
      throw new TooLarge(
        "contract",
        `${path} is ${Number(stats.size)} bytes, more than the ${options.maxBytes} a file of its kind holds`,
        "look at it (`ls -l`), then move it away",
      );
    const wanted = Number(stats.size) + 1;
    let buffer = wanted <= SCRATCH_BYTES ? (scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)) : Buffer.allocUnsafe(wanted);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
      if (total < buffer.length) break;
      // It grew while being read: go on in a larger buffer of its own.
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    return { text: buffer.toString("utf8", 0, total), stats };
  } finally {
    closeSync(fd);
  }
}

/** A file larger than its kind ever is, named and never read into memory: a reader that goes on without it can tell it from the others. */
export class TooLarge extends Failure {}

/** The text of a file of the layer (see readLayerEntry). */
export function readLayerFile(path: string, options: { maxBytes?: number } = {}): string {
  return readLayerEntry(path, options).text;
}

/** The text of a file of the layer (see readLayerEntry), or undefined when it is missing. */
export function readLayerFileIfExists(path: string, options: { maxBytes?: number } = {}): string | undefined {
  try {
    return readLayerEntry(path, options).text;
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

/** The most a record (a handover, a checkpoint, a closed session record) is read as: real ones are a few kilobytes. */
export const RECORD_MAX_BYTES = 1024 * 1024;

/** The text of a regular file, never read through a link, or undefined for anything else (missing, a link, a folder, unreadable). */
export function readPlain(path: string): string | undefined {
  try {
    return readLayerFile(path);
  } catch {
    return undefined;
  }
}

/** Why a file could not be read, in a line about that file (its path is said once, by the caller). */
export function unreadable(err: unknown, path: string): string {
  return `unreadable: ${String((err as Error)?.message ?? err).replace(path, "it")}`;
}

/** A folder (or another kind of entry) where the layer keeps a file: said as such, never as a bug. */
export function notAFile(path: string, what = "a folder"): Failure {
  return new Failure(
    "contract",
    `${path} is ${what} where majordomus keeps a file`,
    "move it away, then run `majordomus init --extend` to put back what the layer needs",
  );
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
