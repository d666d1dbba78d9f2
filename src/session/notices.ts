/**
 * What a live episode is told at its next prompt: that another session opened beside it.
 * `<state>/session-notices/<episode id>.jsonl`, appended by the opener's start hook, taken whole by the told
 * episode's next prompt (renamed away first, so two prompts never both tell it). Only ids, the client and times: no
 * person's text.
 */
import { lstatSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { errnoCode } from "../lib/failure.ts";
import { appendText, layerDir, randomHex, unlinkQuiet } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export type Notice = {
  session_id: string;
  provider: string;
  opened_at: string;
  worktree: string;
  here: boolean;
  task_id?: string;
};

const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const NOTICES_BYTES = 64 * 1024;

const noticesDir = (layer: Layer) => join(sectionPath(layer, "state"), "session-notices");
/** A notices folder that is a link (a stranger's) is never read, renamed in or emptied. */
const linked = (dir: string) => lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true;

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

/** Removed when the episode closes, with one a killed prompt hook left behind. */
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
