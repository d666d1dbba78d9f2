/** Backups of the person's client files, kept in the local half before install or uninstall changes them. */
import { chmodSync, constants, copyFileSync, lstatSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createHash } from "../lib/runtime.ts";
import { compactStamp, wall } from "../lib/clock.ts";
import { ensureDir, readIfExists, writeFileAtomic } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";

/**
 * A copy of the person's file before majordomus changes it, in the local half (`git add .claude` must not commit it).
 */
export function backupOf(ws: Workspace, path: string, rel: string): string {
  const backups = backupsDir(ws);
  ensureDir(backups, 0o700);
  for (let n = 0; ; n++) {
    const backup = join(backups, `${rel.replace(/[\\/]/g, "--")}.${compactStamp(wall())}${n === 0 ? "" : `.${n}`}`);
    try {
      copyFileSync(path, backup, constants.COPYFILE_EXCL);
    } catch (err) {
      if ((err as { code?: string }).code === "EEXIST") continue;
      throw err;
    }
    chmodSync(backup, 0o600);
    return backup.slice(ws.position.worktree.length + 1);
  }
}

const backupsDir = (ws: Workspace) => join(ws.layer.dir, ws.layer.manifest.local.path, "backups");
const MERGES = "merges.json";
type Merges = Record<string, { backup: string; merged_sha256: string }>;

function readMerges(ws: Workspace): Merges {
  try {
    const parsed = JSON.parse(readIfExists(join(backupsDir(ws), MERGES)) ?? "{}") as Merges;
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

export function noteMerge(ws: Workspace, rel: string, backup: string, text: string): void {
  const merges = { ...readMerges(ws), [rel]: { backup, merged_sha256: createHash("sha256", text) } };
  writeFileAtomic(join(backupsDir(ws), MERGES), `${JSON.stringify(merges, null, 2)}\n`, 0o600);
}

/** The person's original, when the file is still exactly what a merge made: restored byte for byte. */
export function originalOf(ws: Workspace, rel: string, current: string): { bytes: Buffer; forget(): void } | undefined {
  const merges = readMerges(ws);
  const m = merges[rel];
  if (!m || createHash("sha256", current) !== m.merged_sha256) return undefined;
  const bytes = readBackup(ws, m.backup);
  if (!bytes) return undefined;
  return {
    bytes,
    forget: () => {
      const { [rel]: _gone, ...rest } = merges;
      writeFileAtomic(join(backupsDir(ws), MERGES), `${JSON.stringify(rest, null, 2)}\n`, 0o600);
    },
  };
}

/** A backup's bytes: only a regular file inside the backups folder (merges.json is the local half's, never trusted blindly). */
function readBackup(ws: Workspace, rel: string): Buffer | undefined {
  const path = resolve(ws.position.worktree, rel);
  const dir = backupsDir(ws);
  // The folder itself, and the file in it directly: neither may be a link (a stranger's, to the person's files).
  if (dirname(path) !== dir || !lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return undefined;
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
