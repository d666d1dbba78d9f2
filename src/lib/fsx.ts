/**
 * Writes with the product's guarantees: a reader never sees a half-written file (temp file, then rename or link), and
 * a record that must not be overwritten is published with link(2).
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

/** Random hex from Web Crypto (node:crypto costs ~10 ms to load in a Bun binary). */
export function randomHex(bytes = 8): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

let temps = 0;

/** `.<name>.<pid>.<8 hex>.tmp` (the form lifecycle/sweep.ts knows), created O_EXCL: unique without a secret. */
function tempPathFor(target: string): string {
  const suffix = ((((temps++ & 0xfff) << 20) | Math.floor(Math.random() * 0x100000)) >>> 0)
    .toString(16)
    .padStart(8, "0");
  return join(dirname(target), `.${basename(target)}.${process.pid}.${suffix}.tmp`);
}

export const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** `durable` (the default) flushes before the name appears; pointers majordomus can rebuild skip it. */
export type WriteOptions = {
  durable?: boolean;
  /** Where the temp file goes (same filesystem), so a killed writer never leaves one in a tracked folder. */
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
  // The umask may have narrowed the mode; records promise an exact one.
  chmodSync(temp, mode);
  return temp;
}

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

/** Publish `target` only if no file has that name; false, writing nothing, when one does. */
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
    if (errnoCode(err) === "EXDEV" && options.tempDir)
      return publishNew(target, content, mode, { ...options, tempDir: undefined });
    throw err;
  } finally {
    unlinkQuiet(temp);
  }
}

/** Open to append, never through a symbolic link (ELOOP); `create` makes it with `mode`. */
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
  } catch {}
}

/** Missing parents get the same mode: a private folder must not sit under a world-readable parent it made. */
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

/** A folder in a layer section, made if missing; a symbolic link there (a stranger can track one) is refused. */
export function layerDir(path: string, mode: number): string {
  ensureDir(path, mode);
  if (lstatSync(path).isSymbolicLink()) throw linkRefusal(path);
  return path;
}

export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    if (errnoCode(err) === "EISDIR") throw notAFile(path);
    throw err;
  }
}

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
