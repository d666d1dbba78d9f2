/**
 * Temp files a killed writer left (`.<name>.<pid>.<hex>.tmp`, see lib/fsx.ts): each is removed
 * once its writer is gone and it is old enough that no live write can still own it. Only names of
 * that exact shape, only in the layer's own folders, never through a link.
 */
import { lstatSync, readdirSync, rmSync, type Dirent } from "node:fs";
import { join, relative, sep } from "node:path";
import { alive } from "../lib/holder.ts";
import { TEMP_NAME } from "../lib/fsx.ts";
import { sectionPath, SECTIONS, type SectionName } from "../layer/manifest.ts";
import type { Workspace } from "../workspace/workspace.ts";

const GRACE_MS = 10_000;

/**
 * Every entry of the layer's own folders (each half's own folder, each section folder and two
 * levels below it), each folder listed once: the folders below are found in the same listing that
 * is searched for temp files (they hold tens of thousands of records on a busy layer).
 */
function* entriesOf(ws: Workspace, skip: string | undefined): Generator<{ dir: string; entry: Dirent }> {
  const seen = new Set<string>();
  function* walk(dir: string, depth: number): Generator<{ dir: string; entry: Dirent }> {
    if (seen.has(dir) || (skip !== undefined && (dir === skip || dir.startsWith(skip + sep)))) return;
    seen.add(dir);
    for (const entry of readdirSafe(dir)) {
      yield { dir, entry };
      if (depth > 0 && entry.isDirectory() && !entry.isSymbolicLink()) yield* walk(join(dir, entry.name), depth - 1);
    }
  }
  // The halves' own folders hold files too (the local half's README, written through a temp file).
  for (const half of [ws.layer.manifest.repo.path, ws.layer.manifest.local.path])
    yield* walk(join(ws.layer.dir, half), 0);
  for (const name of Object.keys(ws.layer.manifest.sections) as SectionName[]) {
    if (SECTIONS[name].kind === "dir") yield* walk(sectionPath(ws.layer, name), 2);
  }
}

function readdirSafe(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The stray temp files in the layer (dead writer, past the grace), as repository-relative paths.
 * `walked`: a folder a walk of the caller's already listed (doctor's of the local half), with the
 * temp files it found there; that folder is not listed again.
 */
export function strayTemps(ws: Workspace, walked?: { root: string; temps: readonly string[] }): string[] {
  const now = Date.now();
  const out: string[] = [];
  const candidates: string[] = [...(walked?.temps ?? [])];
  for (const { dir, entry } of entriesOf(ws, walked?.root))
    if (entry.isFile() && TEMP_NAME.test(entry.name)) candidates.push(join(dir, entry.name));
  for (const path of candidates) {
    const pid = Number(TEMP_NAME.exec(path.slice(path.lastIndexOf(sep) + 1))?.[1]);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile() || now - stat.mtimeMs < GRACE_MS || alive({ pid })) continue;
    out.push(relative(ws.position.worktree, path));
  }
  return out.sort();
}

/** Remove them; returns what was removed. */
export function sweepTemps(ws: Workspace): string[] {
  const stray = strayTemps(ws);
  for (const rel of stray) rmSync(join(ws.position.worktree, rel), { force: true });
  return stray;
}
