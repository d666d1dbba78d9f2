/**
 * Open episodes: `<state>/sessions-open/<key>.yaml`, one per provider session (key from keys.ts;
 * `hand` for the one opened by hand). The pointer `<state>/session-current` names the key of the
 * episode opened last, replaced by rename (no symlink: the binary also runs on Windows).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { errnoCode } from "../lib/failure.ts";
import { ensureDir, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile, unreadable } from "../lib/safe-read.ts";
import { parseYaml } from "../lib/runtime.ts";
import { emitMap } from "../lib/yaml-emit.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export const OPEN_KEYS = [
  "session_id",
  "opened_at",
  "opened_by",
  "owner",
  "worker",
  "provider",
  "provider_session",
  "repository_id",
  "worktree",
  "branch",
  "start_head",
  "start_working_tree",
  "task_id",
  "context_path",
] as const;

/**
 * Keys an open episode may carry beyond those: the ordinal of the client's context window (`0`
 * until its first compaction; a resumed session keeps counting), and where the client keeps its
 * own transcript of the session (the path its start event named, never read or copied by the
 * lifecycle: only the history tools read it, on demand), and the processes that started the hook
 * which opened or last resumed it (`pid:start` words, nearest first: the client is among them),
 * so the history tools can tell the client that started them from another. All stay in the
 * git-ignored half.
 */
export const OPTIONAL_OPEN_KEYS = ["window", "transcript_path", "client_processes"] as const;

export type OpenEpisode = Record<(typeof OPEN_KEYS)[number], string> &
  Partial<Record<(typeof OPTIONAL_OPEN_KEYS)[number], string>>;

const ALL_KEYS: readonly string[] = [...OPEN_KEYS, ...OPTIONAL_OPEN_KEYS];

/** One line, no control character: what a field another process wrote must be to be shown at all. */
const LINE = (max: number) => new RegExp(`^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]{1,${max}}$`);

/**
 * The shapes the fields another session's record shows must have: an episode id as majordomus makes
 * them, a client's id and session id as the clients make them, one-line paths and names. A record
 * outside them is malformed (skipped and counted), never shown.
 */
const OPEN_SHAPES: ReadonlyArray<readonly [(typeof OPEN_KEYS)[number] | (typeof OPTIONAL_OPEN_KEYS)[number], RegExp]> =
  [
    ["session_id", /^s-\d{14}-[0-9a-f]{12}$/],
    ["provider", /^[a-z][a-z0-9-]{0,31}$/],
    ["provider_session", LINE(256)],
    ["opened_at", /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/],
    ["task_id", /^(none|t-\d{14}-[0-9a-f]{4})$/],
    ["worktree", LINE(4096)],
    ["branch", LINE(1024)],
    ["opened_by", LINE(200)],
    ["window", /^\d{1,9}$/],
  ];

/** The episode's window ordinal (0 for a record that names none). */
export function windowOf(episode: Pick<OpenEpisode, "window">): number {
  const n = Number(episode.window ?? "0");
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function openDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "sessions-open");
}

export function episodePath(layer: Layer, key: string): string {
  return join(openDir(layer), `${key}.yaml`);
}

function pointerPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), "session-current");
}

export type ReadEpisode = { episode?: OpenEpisode; problem?: string };

export async function readEpisode(path: string): Promise<ReadEpisode> {
  let text: string;
  try {
    text = readLayerFile(path);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return {};
    return { problem: `${path}: ${unreadable(err, path)}` };
  }
  return parseEpisode(text, path);
}

/** An open record's text (read from `path`) as an episode, or what is wrong with it. */
export async function parseEpisode(text: string, path: string): Promise<ReadEpisode> {
  try {
    const data = (await parseYaml(text)) as Record<string, unknown>;
    for (const key of OPEN_KEYS)
      if (typeof data?.[key] !== "string") return { problem: `${path}: ${key} is missing or not a string` };
    for (const key of OPTIONAL_OPEN_KEYS)
      if (data[key] !== undefined && typeof data[key] !== "string")
        return { problem: `${path}: ${key} is not a string` };
    const unknown = Object.keys(data).filter((k) => !ALL_KEYS.includes(k));
    if (unknown.length > 0) return { problem: `${path}: undeclared key(s) ${unknown.join(", ")}` };
    const bad = OPEN_SHAPES.find(([key, shape]) => data[key] !== undefined && !shape.test(data[key] as string));
    if (bad) return { problem: `${path}: ${bad[0]} is not in its shape (${bad[1].source})` };
    return { episode: data as OpenEpisode };
  } catch (err) {
    return { problem: `${path}: not valid YAML (${(err as Error).message})` };
  }
}

export function writeEpisode(layer: Layer, key: string, episode: OpenEpisode): void {
  ensureDir(openDir(layer), 0o700);
  writeFileAtomic(
    episodePath(layer, key),
    `# An open majordomus episode. Written by majordomus; removed when the episode closes.\n${emitMap([...OPEN_KEYS.map((k) => [k, episode[k]] as const), ...OPTIONAL_OPEN_KEYS.flatMap((k) => (episode[k] === undefined ? [] : [[k, episode[k]!] as const]))])}`,
    0o600,
  );
}

export function removeEpisode(layer: Layer, key: string): void {
  unlinkQuiet(episodePath(layer, key));
  if (readPointer(layer) === key) unlinkQuiet(pointerPath(layer));
}

export function setPointer(layer: Layer, key: string): void {
  writeFileAtomic(pointerPath(layer), `${key}\n`, 0o600, { durable: false });
}

export function readPointer(layer: Layer): string | undefined {
  try {
    return readLayerFile(pointerPath(layer)).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Open episodes, the most recently opened first (a copy; the given list is left as it is). */
export function newestOpenFirst<T extends Pick<OpenEpisode, "opened_at">>(open: readonly T[]): T[] {
  return [...open].sort((a, b) => (a.opened_at < b.opened_at ? 1 : a.opened_at > b.opened_at ? -1 : 0));
}

/** The open episodes' file names (`<key>.yaml`), sorted; none when the folder is not there. */
export function openNames(layer: Layer): string[] {
  try {
    return readdirSync(openDir(layer))
      .filter((n) => n.endsWith(".yaml"))
      .sort();
  } catch {
    return [];
  }
}

/** Every open episode of this checkout, with its key; unreadable records come back as problems. */
export async function listOpen(layer: Layer): Promise<Array<{ key: string } & ReadEpisode>> {
  const out = [];
  for (const name of openNames(layer))
    out.push({ key: name.slice(0, -5), ...(await readEpisode(join(openDir(layer), name))) });
  return out;
}
