/**
 * The read side's secret: one token per checkout, in the local half (0600, in a 0700 folder), which
 * only the person can read. `serve` asks every request for it as a bearer header (or a session key
 * of its run, which the page trades for the printed URL's one-time secret: serve/shell.ts), so
 * another user of this machine, or anyone on the network, who reaches the port reads nothing of the
 * account. It is never an argument of a process (so never in a process list), never
 * tracked, never in the ledger. Delete the file to rotate it (or `serve --rotate-token`).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { join, relative } from "node:path";
import { Failure, isFailure } from "../lib/failure.ts";
import { ensureDir, publishNew, unlinkQuiet } from "../lib/fsx.ts";
import { readLayerEntry } from "../lib/safe-read.ts";
import { log } from "../lib/log.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { trackedUnder } from "../repo/tracked.ts";

export const TOKEN_FILE = "serve.token";
const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

export function tokenPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), TOKEN_FILE);
}

const rewrite = (path: string) => `remove it (\`rm ${path}\`): the next \`majordomus serve\` writes a new one`;

/**
 * What is in the token file, or undefined when there is none. Opened the layer's one safe way (no
 * link followed, no FIFO waited on, a regular file only); a file others may read, or another
 * user's, is refused.
 */
function readToken(path: string): string | undefined {
  let entry: ReturnType<typeof readLayerEntry>;
  try {
    entry = readLayerEntry(path, { maxBytes: 256 });
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    if (isFailure(err)) throw new Failure("refused", `${err.message} (the read side's secret)`, rewrite(path));
    throw err;
  }
  const { text, stats } = entry;
  if ((stats.mode & 0o077) !== 0)
    throw new Failure(
      "refused",
      `${path} may be read by others (mode ${(stats.mode & 0o777).toString(8)}); a secret others can read is no secret`,
      `${rewrite(path)}, readable by you alone`,
    );
  if (typeof process.getuid === "function" && stats.uid !== process.getuid())
    throw new Failure("refused", `${path} belongs to another user`, rewrite(path));
  if (!TOKEN.test(text.trim()))
    throw new Failure("contract", `${path} does not hold a token majordomus wrote`, rewrite(path));
  return text.trim();
}

/**
 * The checkout's token: the one on file, or a new one written there first (0600). A token file git
 * tracks came with a branch (git writes ignored files on checkout), so whoever pushed it knows its
 * value, whatever its mode: it is refused, removed and replaced, and the person is told how to
 * untrack it. A git that cannot say leaves the file as it is.
 */
export async function serveToken(
  layer: Layer,
  worktree: string,
): Promise<{ token: string; path: string; created: boolean }> {
  const path = tokenPath(layer);
  const tracked = await trackedUnder(worktree, path);
  if (tracked.files.has(path)) {
    const shown = relative(worktree, path);
    log.warn(
      `${shown} is tracked by git (a branch added it, so others know its value): it is refused and replaced with a new token; untrack it with \`git rm --cached ${shown}\` and commit that`,
    );
    unlinkQuiet(path);
  }
  const existing = readToken(path);
  if (existing) return { token: existing, path, created: false };
  ensureDir(sectionPath(layer, "state"), 0o700);
  // Two servers started at once write one token: the first to publish it; the other reads it.
  const created = publishNew(path, `${randomBytes(32).toString("base64url")}\n`, 0o600);
  return { token: readToken(path)!, path, created };
}

/** Remove the checkout's token, so the next serveToken writes a new one (the old one opens nothing after). */
export function rotateToken(layer: Layer): void {
  unlinkQuiet(tokenPath(layer));
}

/** Whether `given` is the token, compared in constant time. */
export function isToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
