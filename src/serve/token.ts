/**
 * The read side's secret: one token per checkout in the local half (0600 in 0700), asked of every request as a Bearer
 * header. Never an argument of a process, never tracked, never in the ledger. `serve --rotate-token` replaces it.
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

/** The token on file through the safe open; one others may read, or another user's, is refused. */
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
 * The token on file, or a new one. A tracked token came with a branch, so its pusher knows it: refused, removed,
 * replaced, and the person told how to untrack it.
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
      `${shown} is tracked by git (a branch added it, so others know its value): it is refused ` +
        `and replaced with a new token; untrack it with \`git rm --cached ${shown}\` and commit that`,
    );
    unlinkQuiet(path);
  }
  const existing = readToken(path);
  if (existing) return { token: existing, path, created: false };
  ensureDir(sectionPath(layer, "state"), 0o700);
  // Two servers started at once share the first one published.
  const created = publishNew(path, `${randomBytes(32).toString("base64url")}\n`, 0o600);
  return { token: readToken(path)!, path, created };
}

/** The token on file now, for a server that asks at every request: missing, unreadable or odd opens nothing. */
export function tokenNow(layer: Layer): string | undefined {
  try {
    return readToken(tokenPath(layer));
  } catch {
    return undefined;
  }
}

export function rotateToken(layer: Layer): void {
  unlinkQuiet(tokenPath(layer));
}

export function isToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
