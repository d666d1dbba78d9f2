/**
 * Temp files killed writers left (`.<name>.<pid>.<hex>.tmp`): removed once the writer is gone and past the grace.
 * Only that shape, only in the layer's own folders, never through a link.
 */
import { lstatSync, readdirSync, rmSync, type Dirent } from "node:fs";
import { join, relative, sep } from "node:path";
import { alive } from "../lib/holder.ts";
import { TEMP_NAME } from "../lib/fsx.ts";
import { sectionPath, SECTIONS, type SectionName } from "../layer/manifest.ts";
import type { Workspace } from "../workspace/workspace.ts";

const GRACE_MS = 10_000;

/** Each folder listed once: the folders below come from the listing searched for temp files. */
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

/** `walked`: a folder the caller already listed (doctor's), with its temp files; not listed again. */
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

export function sweepTemps(ws: Workspace): string[] {
  const stray = strayTemps(ws);
  for (const rel of stray) rmSync(join(ws.position.worktree, rel), { force: true });
  return stray;
}
