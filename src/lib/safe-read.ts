/**
 * The one safe way to read a file a stranger may have put there: never through a link (O_NOFOLLOW), never waiting on
 * a FIFO (O_NONBLOCK), a regular file only, within a size cap. An architecture rule holds every read open of src/ to
 * this module.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { errnoCode, Failure } from "./failure.ts";

export const NOFOLLOW = (constants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0;

const NONBLOCK = (constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;

export function linkRefusal(shown: string): Failure {
  return new Failure(
    "refused",
    `${shown} is a symbolic link; majordomus never reads or writes through one inside its layer`,
    "replace it with a real folder or file (`ls -l` shows where it points); nothing was written",
  );
}

export function oddRefusal(shown: string, what: string): Failure {
  return new Failure(
    "refused",
    `${shown} is ${what} where majordomus keeps a file; majordomus never reads one (it would wait for a writer)`,
    "move it away (`ls -l` shows what it is), then run `majordomus init --extend`; nothing was written",
  );
}

/** A layer file opened to read, or undefined when missing; a tracked link (to /dev/zero, ~/.ssh) is refused. */
export function openLayerFile(path: string): number | undefined {
  return openRegular(path)?.fd;
}

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
 * A file of a client's own folder, opened as openRegular does once no folder on its way there is a link (a folder made
 * a link to ~/.ssh leads out unopened), then held to it: the path the descriptor really names must be the folder's own
 * real path joined with the path's place in it (a link made meanwhile). Undefined when missing; refused otherwise.
 */
export function openUnder(path: string, root: string): { fd: number; stats: Stats } | undefined {
  const place = relative(resolve(root), resolve(path));
  if (place === "" || place.startsWith("..") || isAbsolute(place))
    throw new Failure(
      "refused",
      `${path} is not inside ${root}`,
      "majordomus reads a client's file only in its own folder",
    );
  const outward = () =>
    new Failure("refused", `${path} leads outside ${root} through a link`, "majordomus never follows one");
  let folder = resolve(root);
  for (const part of place.split(sep).slice(0, -1)) {
    folder = join(folder, part);
    if (lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink()) throw outward();
  }
  const opened = openRegular(path);
  if (!opened) return undefined;
  let real: string | undefined;
  try {
    real = readlinkSync(`/proc/self/fd/${opened.fd}`);
  } catch {
    real = realpathSync(path);
  }
  let expected: string;
  try {
    expected = join(realpathSync(root), place);
  } catch {
    expected = "";
  }
  if (real !== expected) {
    closeSync(opened.fd);
    throw outward();
  }
  return opened;
}

/** One buffer for every small read (doctor's tens of thousands of records); a larger file gets its own. */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Buffer | undefined;

/** A layer file's text and fstat (ENOENT when missing); one byte past fstat's size finds the end in one call. */
export function readLayerEntry(path: string, options: { maxBytes?: number } = {}): { text: string; stats: Stats } {
  const opened = openRegular(path);
  if (opened === undefined) throw Object.assign(new Error(`${path} does not exist`), { code: "ENOENT" });
  const { fd, stats } = opened;
  try {
    // A file far larger than its kind (a tracked 500 MB record) is named, not read.
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
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    return { text: buffer.toString("utf8", 0, total), stats };
  } finally {
    closeSync(fd);
  }
}

export class TooLarge extends Failure {}

export function readLayerFile(path: string, options: { maxBytes?: number } = {}): string {
  return readLayerEntry(path, options).text;
}

export function readLayerFileIfExists(path: string, options: { maxBytes?: number } = {}): string | undefined {
  try {
    return readLayerEntry(path, options).text;
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

export const RECORD_MAX_BYTES = 1024 * 1024;

export function readPlain(path: string): string | undefined {
  try {
    return readLayerFile(path);
  } catch {
    return undefined;
  }
}

export function unreadable(err: unknown, path: string): string {
  return `unreadable: ${String((err as Error)?.message ?? err).replace(path, "it")}`;
}

export function notAFile(path: string, what = "a folder"): Failure {
  return new Failure(
    "contract",
    `${path} is ${what} where majordomus keeps a file`,
    "move it away, then run `majordomus init --extend` to put back what the layer needs",
  );
}
