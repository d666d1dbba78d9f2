/**
 * The read side's secret: one token per checkout, in the local half (0600, in a 0700 folder), which
 * only the person can read. `serve` asks every request for it (a header, or the cookie the page's
 * URL sets), so another user of this machine, or anyone on the network, who reaches the port reads
 * nothing of the account. It is never an argument of a process (so never in a process list), never
 * tracked, never in the ledger. Delete the file to rotate it: the next `serve` makes a new one.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { fstatSync, closeSync, readSync, openSync, constants } from "node:fs";
import { join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { ensureDir, publishNew } from "../lib/fsx.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export const TOKEN_FILE = "serve.token";
const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

export function tokenPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), TOKEN_FILE);
}

/** What is in the token file, or undefined when there is none; a file others may read, or a link, is refused. */
function readToken(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw new Failure(
        "refused",
        `${path} is a symbolic link; the read side's secret is never read through one`,
        `remove it (\`rm ${path}\`): the next \`majordomus serve\` writes a new one`,
      );
    throw err;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new Failure(
        "refused",
        `${path} is not a regular file`,
        `remove it: the next \`majordomus serve\` writes a new one`,
      );
    if ((stats.mode & 0o077) !== 0)
      throw new Failure(
        "refused",
        `${path} may be read by others (mode ${(stats.mode & 0o777).toString(8)}); a secret others can read is no secret`,
        `remove it (\`rm ${path}\`): the next \`majordomus serve\` writes a new one, readable by you alone`,
      );
    if (typeof process.getuid === "function" && stats.uid !== process.getuid())
      throw new Failure(
        "refused",
        `${path} belongs to another user`,
        `remove it: the next \`majordomus serve\` writes a new one`,
      );
    const buffer = Buffer.alloc(256);
    const text = buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0)).trim();
    if (!TOKEN.test(text))
      throw new Failure(
        "contract",
        `${path} does not hold a token majordomus wrote`,
        `remove it: the next \`majordomus serve\` writes a new one`,
      );
    return text;
  } finally {
    closeSync(fd);
  }
}

/** The checkout's token: the one on file, or a new one written there first (0600). */
export function serveToken(layer: Layer): { token: string; path: string; created: boolean } {
  const path = tokenPath(layer);
  const existing = readToken(path);
  if (existing) return { token: existing, path, created: false };
  ensureDir(sectionPath(layer, "state"), 0o700);
  // Two servers started at once write one token: the first to publish it; the other reads it.
  const created = publishNew(path, `${randomBytes(32).toString("base64url")}\n`, 0o600);
  return { token: readToken(path)!, path, created };
}

/** Whether `given` is the token, compared in constant time. */
export function isToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
