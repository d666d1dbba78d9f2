/**
 * A repository's identity, which survives a move and is never shared by a clone.
 *
 * The first majordomus to run in a repository draws a random id and keeps it in git's common dir
 * (`<common dir>/majordomus-repository`), beside git's own files: every worktree of the repository
 * reads the same file, `mv` and `git worktree move` carry it along, and `git clone` never copies it
 * (a clone's common dir is new). The file also names the common dir it was created at, so records
 * written before the id existed (they carry that path as their repository id) keep resolving after
 * a move. Where the file cannot be written (a read-only repository), the common dir's path is the
 * id, as it was before.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { publishNew, randomHex } from "../lib/fsx.ts";

export const IDENTITY_FILE = "majordomus-repository";

export type Identity = { id: string; aliases: string[] };

type Stored = { id: string; created_at: string };

function read(path: string): Stored | undefined {
  // A symlink is never followed: the file is ours or it is not there.
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) return undefined;
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Partial<Stored>;
    if (typeof data.id === "string" && /^r-[0-9a-f]{16,64}$/.test(data.id) && typeof data.created_at === "string")
      return { id: data.id, created_at: data.created_at };
  } catch {
    // unreadable or not ours: treated as absent (and never overwritten)
  }
  return undefined;
}

/**
 * The identity of the repository whose common dir is `commonDir`. `create` draws one when there
 * is none (a command about to write records in a supervised repository); without it, a repository
 * majordomus never wrote in is left untouched and its id is its common dir's path.
 */
export function repositoryIdentity(commonDir: string, options: { create?: boolean } = {}): Identity {
  const path = join(commonDir, IDENTITY_FILE);
  let stored = read(path);
  if (!stored && options.create && lstatSync(path, { throwIfNoEntry: false }) === undefined) {
    const drawn = { id: `r-${randomHex(16)}`, created_at: commonDir };
    try {
      // Two first runs race: the one whose file appears first wins, the other reads it.
      publishNew(path, `${JSON.stringify(drawn)}\n`, 0o644, { durable: false });
    } catch {
      // a read-only repository: fall back to the path below
    }
    stored = read(path);
  }
  if (!stored) return { id: commonDir, aliases: [] };
  return { id: stored.id, aliases: [...new Set([commonDir, stored.created_at])] };
}
