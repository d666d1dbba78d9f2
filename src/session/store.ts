/**
 * Open episodes: `<state>/sessions-open/<key>.yaml`, one per provider session (`hand` for one opened by hand).
 * `<state>/session-current` names the newest, replaced by rename (no symlinks on Windows).
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
 * The client's window ordinal, where it keeps its transcript (read only by the history tools), and the processes that
 * started the hook that opened it, so those tools can tell their client from another. All git-ignored.
 */
export const OPTIONAL_OPEN_KEYS = ["window", "transcript_path", "client_processes"] as const;

export type OpenEpisode = Record<(typeof OPEN_KEYS)[number], string> &
  Partial<Record<(typeof OPTIONAL_OPEN_KEYS)[number], string>>;

const ALL_KEYS: readonly string[] = [...OPEN_KEYS, ...OPTIONAL_OPEN_KEYS];

const LINE = (max: number) => new RegExp(`^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]{1,${max}}$`);

/** Another session's fields are shown only in these shapes; a record outside them is skipped and counted. */
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

export function windowOf(episode: Pick<OpenEpisode, "window">): number {
  const n = Number(episode.window ?? "0");
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/**
 * One small file per episode stopped at its usage limit, named by its key: the one record of the stop. Told to every
 * other session until a later one of this checkout ends (it carried the work on); gone at the episode's own next
 * prompt, or at its close once carried on.
 */
export function stoppedDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "sessions-stopped");
}

export type Stop = {
  session_id: string;
  provider: string;
  provider_session: string;
  stopped_at: string;
  error: string;
  checkpoint?: string;
  /** The later session that ended after it: it carried the work on, so others are told no more (the episode still is). */
  carried_on?: string;
};

const STOP_SHAPES: Record<keyof Stop, RegExp> = {
  session_id: /^s-\d{14}-[0-9a-f]{12}$/,
  provider: /^[a-z][a-z0-9-]{0,31}$/,
  provider_session: LINE(256),
  stopped_at: /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/,
  error: /^[a-z][a-z0-9_]{0,39}$/,
  checkpoint: /^\.ai\/[A-Za-z0-9._/-]{1,512}\.md$/,
  carried_on: /^s-\d{14}-[0-9a-f]{12}$/,
};
const OPTIONAL_STOP_KEYS: ReadonlySet<string> = new Set(["checkpoint", "carried_on"]);

/** A stop file, or undefined when missing, unreadable or not in the shapes above (a stranger's). */
function readStopAt(path: string): (Stop & { path: string }) | undefined {
  try {
    const data = JSON.parse(readLayerFile(path, { maxBytes: 4096 })) as Record<string, unknown>;
    const ok = (Object.keys(STOP_SHAPES) as Array<keyof Stop>).every((k) =>
      OPTIONAL_STOP_KEYS.has(k) && data[k] === undefined
        ? true
        : typeof data[k] === "string" && STOP_SHAPES[k].test(data[k]),
    );
    return ok ? { ...(data as Stop), path } : undefined;
  } catch {
    return undefined;
  }
}

/** The stops recorded here, each with its file. */
export function readStops(layer: Layer): Array<Stop & { path: string }> {
  let names: string[];
  try {
    names = readdirSync(stoppedDir(layer)).filter((n) => /^[A-Za-z0-9._-]{1,200}\.json$/.test(n));
  } catch {
    return [];
  }
  return names.flatMap((n) => readStopAt(join(stoppedDir(layer), n)) ?? []);
}

/** The stop of episode `sessionId`, under its key (a stop file of an earlier episode under that key is not its). */
export function stopOf(layer: Layer, key: string, sessionId: string): Stop | undefined {
  const stop = readStopAt(join(stoppedDir(layer), `${key}.json`));
  return stop?.session_id === sessionId ? stop : undefined;
}

export function writeStop(layer: Layer, key: string, stop: Stop): void {
  ensureDir(stoppedDir(layer));
  writeFileAtomic(join(stoppedDir(layer), `${key}.json`), `${JSON.stringify(stop)}\n`, 0o600);
}

export const removeStop = (layer: Layer, key: string) => unlinkQuiet(join(stoppedDir(layer), `${key}.json`));

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

export function newestOpenFirst<T extends Pick<OpenEpisode, "opened_at">>(open: readonly T[]): T[] {
  return [...open].sort((a, b) => (a.opened_at < b.opened_at ? 1 : a.opened_at > b.opened_at ? -1 : 0));
}

export function openNames(layer: Layer): string[] {
  try {
    return readdirSync(openDir(layer))
      .filter((n) => n.endsWith(".yaml"))
      .sort();
  } catch {
    return [];
  }
}

export async function listOpen(layer: Layer): Promise<Array<{ key: string } & ReadEpisode>> {
  const out = [];
  for (const name of openNames(layer))
    out.push({ key: name.slice(0, -5), ...(await readEpisode(join(openDir(layer), name))) });
  return out;
}
