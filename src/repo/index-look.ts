/**
 * Whether git's index may hold a path under a folder, seen in the index file itself. Versions 2 and 3 store every path
 * whole, so when the folder's path occurs nowhere in the file, git tracks nothing under it and no git process need be
 * asked. Anything else is "maybe", and git is asked: version 4 (paths shortened against the one before), a split or
 * sparse index, a file that is not an index, one this cannot read, an index the environment moved (GIT_INDEX_FILE), or
 * a system whose file names may match in another case.
 */
import { closeSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { openRegular } from "../lib/safe-read.ts";
import { env } from "../lib/env.ts";

const CHUNK = 1 << 20;

/** Whether any of `needles` occurs in the file, read once in chunks that overlap by the longest. */
function holds(fd: number, size: number, needles: readonly Buffer[]): boolean {
  const longest = Math.max(...needles.map((n) => n.length));
  const buffer = Buffer.alloc(Math.min(CHUNK, size) + longest);
  let carried = 0;
  for (let at = 0; at < size;) {
    const n = readSync(fd, buffer, carried, Math.min(CHUNK, size - at), at);
    if (n <= 0) return true;
    at += n;
    const seen = buffer.subarray(0, carried + n);
    if (needles.some((needle) => seen.includes(needle))) return true;
    carried = Math.min(longest - 1, seen.length);
    seen.copy(buffer, 0, seen.length - carried);
  }
  return false;
}

/** `rel`: the folder as git names it (relative to the worktree, with `/`). */
export function indexMayHold(gitDir: string, rel: string): boolean {
  // Where paths may match in another case, or the environment names another index, git is asked.
  if (env("GIT_INDEX_FILE") !== undefined || process.platform !== "linux" || rel === "" || rel === ".") return true;
  try {
    if (readdirSync(gitDir).some((n) => n.startsWith("sharedindex."))) return true;
    const opened = openRegular(join(gitDir, "index"));
    if (!opened) return false;
    try {
      const head = Buffer.alloc(8);
      if (readSync(opened.fd, head, 0, 8, 0) !== 8 || head.toString("latin1", 0, 4) !== "DIRC") return true;
      const version = head.readUInt32BE(4);
      if (version !== 2 && version !== 3) return true;
      return holds(opened.fd, opened.stats.size, [Buffer.from(rel), SPARSE]);
    } finally {
      closeSync(opened.fd);
    }
  } catch {
    return true;
  }
}

/** The sparse index's extension: its folders stand for paths the file does not name. */
const SPARSE = Buffer.from("sdir");
