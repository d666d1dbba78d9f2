/**
 * One way to reach the data tree (`share/`, `mods/`): from the binary when it was built with
 * them embedded, else from the source checkout. Callers never know which.
 */
import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { EMBEDDED, type EmbeddedFile } from "./embedded.ts";
import { Failure } from "../lib/failure.ts";
import { ensureDir, writeFileAtomic } from "../lib/fsx.ts";
import { parseYaml } from "../lib/runtime.ts";

export type Asset = { path: string; mode: number; bytes: Uint8Array };

const SOURCE_ROOT = join(import.meta.dirname ?? ".", "..", "..");

function fromEmbedded(file: EmbeddedFile): Asset {
  return { path: file.path, mode: file.mode, bytes: readFileSync(file.file) };
}

function walk(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
}

function fromDisk(prefix: string): Asset[] {
  const files: string[] = [];
  walk(join(SOURCE_ROOT, prefix), files);
  return files.map((full) => ({
    path: relative(SOURCE_ROOT, full).split(sep).join("/"),
    mode: statSync(full).mode & 0o777,
    bytes: readFileSync(full),
  }));
}

/** Whether this process carries its own data tree (a built binary) or reads the checkout. */
export function embedded(): boolean {
  return EMBEDDED !== null;
}

/** Every asset whose path starts with `prefix` (a folder such as `share/skeleton/`), sorted by path. */
export function listAssets(prefix: string): Asset[] {
  if (EMBEDDED) return EMBEDDED.filter((f) => f.path.startsWith(prefix)).map(fromEmbedded);
  return fromDisk(prefix);
}

/** The text of one asset; a missing asset is an internal failure (the build is broken). */
export function readAsset(path: string): string {
  if (EMBEDDED) {
    const file = EMBEDDED.find((f) => f.path === path);
    if (file) return readFileSync(file.file, "utf8");
  } else {
    try {
      return readFileSync(join(SOURCE_ROOT, path), "utf8");
    } catch {
      // reported below
    }
  }
  throw new Failure(
    "internal",
    `embedded data file missing: ${path}`,
    "rebuild the binary with `bun run build.ts`, or reinstall it",
  );
}

/**
 * The parsed content of a .json or .yaml asset. The binary carries it already parsed (and
 * validated when it was built); from a checkout it is parsed here.
 */
export async function readData(path: string): Promise<unknown> {
  const file = EMBEDDED?.find((f) => f.path === path);
  if (file && file.json !== undefined) return JSON.parse(readFileSync(file.json, "utf8"));
  const text = readAsset(path);
  return path.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { strict: true });
}

/**
 * Write the assets under `prefix` into `dest`, keeping their relative paths and modes.
 * `keep(existing)` decides per file whether an existing file stays; it returns what was written.
 */
export function writeAssets(prefix: string, dest: string, keep: (target: string) => boolean): string[] {
  const written: string[] = [];
  for (const asset of listAssets(prefix)) {
    const target = join(dest, asset.path.slice(prefix.length));
    if (keep(target)) continue;
    ensureDir(dirname(target));
    writeFileAtomic(target, asset.bytes, asset.mode);
    chmodSync(target, asset.mode);
    written.push(target);
  }
  return written;
}
