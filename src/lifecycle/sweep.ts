/**
 * Temp files a killed writer left (`.<name>.<pid>.<hex>.tmp`, see lib/fsx.ts): each is removed
 * once its writer is gone and it is old enough that no live write can still own it. Only names of
 * that exact shape, only in the layer's own folders, never through a link.
 */
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { alive } from "../lib/holder.ts";
import { sectionPath, SECTIONS, type SectionName } from "../layer/manifest.ts";
import type { Workspace } from "../workspace/workspace.ts";

const TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const GRACE_MS = 10_000;

function dirsOf(ws: Workspace): string[] {
  const out = new Set<string>();
  for (const name of Object.keys(ws.layer.manifest.sections) as SectionName[]) {
    if (SECTIONS[name].kind !== "dir") continue;
    const top = sectionPath(ws.layer, name);
    const walk = (dir: string, depth: number) => {
      out.add(dir);
      if (depth === 0) return;
      for (const e of readdirSafe(dir)) if (e.isDirectory() && !e.isSymbolicLink()) walk(join(dir, e.name), depth - 1);
    };
    walk(top, 2);
  }
  return [...out];
}

function readdirSafe(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The stray temp files in the layer (dead writer, past the grace), as repository-relative paths. */
export function strayTemps(ws: Workspace): string[] {
  const now = Date.now();
  const out: string[] = [];
  for (const dir of dirsOf(ws)) {
    for (const e of readdirSafe(dir)) {
      const m = e.isFile() ? TEMP.exec(e.name) : null;
      if (!m) continue;
      const path = join(dir, e.name);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat || now - stat.mtimeMs < GRACE_MS || alive({ pid: Number(m[1]) })) continue;
      out.push(relative(ws.position.worktree, path));
    }
  }
  return out.sort();
}

/** Remove them; returns what was removed. */
export function sweepTemps(ws: Workspace): string[] {
  const stray = strayTemps(ws);
  for (const rel of stray) rmSync(join(ws.position.worktree, rel), { force: true });
  return stray;
}
