/**
 * The one safe way to read a file of the layer (or any file a stranger may have put there): never
 * through a symbolic link (O_NOFOLLOW), never waiting on a FIFO (O_NONBLOCK), a regular file only,
 * and no more than its kind ever holds. An architecture rule holds every read open of src/ to this
 * module; the refusals name the file and what to do.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { errnoCode, Failure } from "./failure.ts";

/** O_NOFOLLOW where the platform has it (not on Windows, which has no such links to fear here). */
export const NOFOLLOW = (constants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0;

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
