/**
 * What a live episode is told at its next prompt: that another session opened beside it.
 * `<state>/session-notices/<episode id>.jsonl`, one JSON line a notice, appended by the start
 * hook of the session that opened (in the told episode's own local half, its worktree's), and
 * taken whole by the told episode's next prompt hook: renamed away first, so two prompts never
 * both tell it, then read and removed. Only ids, the client and times are kept: no person's text.
 */
import { lstatSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { errnoCode } from "../lib/failure.ts";
import { appendText, layerDir, randomHex, unlinkQuiet } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export type Notice = {
  /** The episode that opened, and its client. */
  session_id: string;
  provider: string;
  opened_at: string;
  /** Its worktree, and whether it is the told episode's own. */
  worktree: string;
  here: boolean;
  /** The task active in its worktree when it opened, if any. */
  task_id?: string;
};

/** An episode id as majordomus draws them: a file name of its own, nothing that climbs out of the folder. */
const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The largest notices file read: a few lines are a few hundred bytes. */
const NOTICES_BYTES = 64 * 1024;

const noticesDir = (layer: Layer) => join(sectionPath(layer, "state"), "session-notices");
/** A notices folder that is a link (planted by a stranger's repository) is never read, renamed in or emptied. */
const linked = (dir: string) => lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true;

/** Leave a notice for `episodeId` in `layer` (its worktree's). */
export function leaveNotice(layer: Layer, episodeId: string, notice: Notice): void {
  if (!EPISODE_ID.test(episodeId)) return;
  const dir = layerDir(noticesDir(layer), 0o700);
  appendText(join(dir, `${episodeId}.jsonl`), `${JSON.stringify(notice)}\n`);
}

function parsed(line: string): Notice | undefined {
  try {
    const n = JSON.parse(line) as Partial<Notice>;
    const strings = [n.session_id, n.provider, n.opened_at, n.worktree].every((v) => typeof v === "string");
    return strings && typeof n.here === "boolean" ? (n as Notice) : undefined;
  } catch {
    return undefined;
  }
}

/** Take every notice left for `episodeId`, once: the file is renamed away before it is read. */
export function takeNotices(layer: Layer, episodeId: string): Notice[] {
  if (!EPISODE_ID.test(episodeId)) return [];
  const dir = noticesDir(layer);
  if (linked(dir)) return [];
  const path = join(dir, `${episodeId}.jsonl`);
  const taken = `${path}.taken-${process.pid}-${randomHex(4)}`;
  try {
    renameSync(path, taken);
  } catch (err) {
    if (errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR") return [];
    throw err;
  }
  try {
    return readLayerFile(taken, { maxBytes: NOTICES_BYTES })
      .split("\n")
      .filter((l) => l.trim() !== "")
      .flatMap((l) => parsed(l) ?? []);
  } finally {
    unlinkQuiet(taken);
  }
}

/**
 * Notices left for an episode that is no longer open, removed when it closes: its file, and one a
 * prompt hook killed between taking and removing it left behind.
 */
export function dropNotices(layer: Layer, episodeId: string): void {
  if (!EPISODE_ID.test(episodeId)) return;
  const dir = noticesDir(layer);
  if (linked(dir)) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(`${episodeId}.jsonl`)) unlinkQuiet(join(dir, name));
}
