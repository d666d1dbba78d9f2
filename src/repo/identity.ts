/**
 * A repository's identity: a random id in `<common dir>/majordomus-repository`, read by every worktree, carried by
 * `mv` and `git worktree move`, never copied by `git clone`. It names the common dir it was made at, so older records
 * (which carry that path) keep resolving after a move. Unwritable: the path is the id.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { publishNew, randomHex } from "../lib/fsx.ts";

export const IDENTITY_FILE = "majordomus-repository";

export type Identity = { id: string; aliases: string[] };

type Stored = { id: string; created_at: string };

function read(path: string): Stored | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) return undefined;
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Partial<Stored>;
    if (typeof data.id === "string" && /^r-[0-9a-f]{16,64}$/.test(data.id) && typeof data.created_at === "string")
      return { id: data.id, created_at: data.created_at };
  } catch {}
  return undefined;
}

/** `create` draws one when there is none; without it an untouched repository's id is its common dir's path. */
export function repositoryIdentity(commonDir: string, options: { create?: boolean } = {}): Identity {
  const path = join(commonDir, IDENTITY_FILE);
  let stored = read(path);
  if (!stored && options.create && lstatSync(path, { throwIfNoEntry: false }) === undefined) {
    const drawn = { id: `r-${randomHex(16)}`, created_at: commonDir };
    try {
      // Two first runs race: the first file published wins.
      publishNew(path, `${JSON.stringify(drawn)}\n`, 0o644, { durable: false });
    } catch {}
    stored = read(path);
  }
  if (!stored) return { id: commonDir, aliases: [] };
  return { id: stored.id, aliases: [...new Set([commonDir, stored.created_at])] };
}
