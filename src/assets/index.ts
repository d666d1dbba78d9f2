/** The data tree (`share/`, `mods/`): embedded in a built binary, else read from the checkout. */
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

export function embedded(): boolean {
  return EMBEDDED !== null;
}

export function listAssets(prefix: string): Asset[] {
  if (EMBEDDED) return EMBEDDED.filter((f) => f.path.startsWith(prefix)).map(fromEmbedded);
  return fromDisk(prefix);
}

export function readAsset(path: string): string {
  if (EMBEDDED) {
    const file = EMBEDDED.find((f) => f.path === path);
    if (file) return readFileSync(file.file, "utf8");
  } else {
    try {
      return readFileSync(join(SOURCE_ROOT, path), "utf8");
    } catch {}
  }
  throw new Failure(
    "internal",
    `embedded data file missing: ${path}`,
    "rebuild the binary with `bun run build.ts`, or reinstall it",
  );
}

/** The binary carries it parsed and validated at build time. */
export async function readData(path: string): Promise<unknown> {
  const file = EMBEDDED?.find((f) => f.path === path);
  if (file && file.json !== undefined) return JSON.parse(readFileSync(file.json, "utf8"));
  const text = readAsset(path);
  return path.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { strict: true });
}

/** `keep(existing)` decides whether an existing file stays. */
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
