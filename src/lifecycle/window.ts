/**
 * An episode's context windows: one ends when the client compacts (or majordomus's fresh window answers for it). The
 * ordinal stays with the open episode, so a resumed session goes on counting; each change is a ledger line.
 */
import { basename } from "node:path";
import { readPlain } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendPrepared, lineMaker } from "../ledger/store.ts";
import { keyOf } from "../session/keys.ts";
import {
  episodePath,
  parseEpisode,
  readEpisode,
  readStops,
  removeStop,
  windowOf,
  writeEpisode,
  writeStop,
  type OpenEpisode,
} from "../session/store.ts";
import { unlinkQuiet } from "../lib/fsx.ts";

const LOCK_WAIT_MS = 3_000;

export type WindowTrigger = "compact" | "fresh_window";

export const windowId = (episode: Pick<OpenEpisode, "session_id" | "window">, ordinal = windowOf(episode)): string =>
  `${episode.session_id}:${ordinal}`;

/**
 * Change the open record under its lock if it is still this episode; undefined when it closed meanwhile. Parsed
 * outside the lock, written only if the text is unchanged, else read again; `entry` is appended inside the same lock,
 * so the ledger orders the changes.
 */
async function amend(
  ws: Workspace,
  episode: OpenEpisode,
  change: (e: OpenEpisode) => OpenEpisode | undefined,
  entry?: (written: OpenEpisode) => string,
): Promise<OpenEpisode | undefined> {
  const key = keyOf(episode);
  const path = episodePath(ws.layer, key);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const text = readPlain(path);
    const current = text === undefined ? undefined : (await parseEpisode(text, path)).episode;
    if (current?.session_id !== episode.session_id) return undefined;
    const next = change(current);
    if (!next) return current;
    const done = withLock(`${path}.lock`, Math.max(0, deadline - Date.now()), () => {
      if (readPlain(path) !== text) return undefined;
      writeEpisode(ws.layer, key, next);
      if (entry) appendPrepared(ws, entry(next));
      return next;
    });
    if (!done.acquired) throw new Error(`the episode lock ${path}.lock is held by another majordomus`);
    if (done.value) return done.value;
    if (Date.now() >= deadline)
      throw new Error(
        `${path} kept changing for ${LOCK_WAIT_MS} ms while episode ${episode.session_id} was being amended`,
      );
  }
}

export async function advanceWindow(
  ws: Workspace,
  episode: OpenEpisode,
  trigger: WindowTrigger,
  clientTrigger?: string,
): Promise<number | undefined> {
  const line = await lineMaker(inEpisode(ws, episode));
  const event = (e: OpenEpisode) =>
    line("session.window", {
      session_id: episode.session_id,
      window: windowOf(e),
      trigger,
      ...(clientTrigger ? { client_trigger: clientTrigger } : {}),
    });
  const written = await amend(ws, episode, (e) => ({ ...e, window: String(windowOf(e) + 1) }), event);
  if (!written) return undefined;
  const ordinal = windowOf(written);
  log.info(`episode ${episode.session_id} is in window :${ordinal} (${trigger})`);
  return ordinal;
}

export type ClientNote = { transcript_path?: string; client_processes?: string };

const changes = (e: OpenEpisode, note: ClientNote) =>
  Object.entries(note).some(([k, v]) => v !== undefined && e[k as keyof ClientNote] !== v);

export async function noteClient(ws: Workspace, episode: OpenEpisode, note: ClientNote): Promise<OpenEpisode> {
  if (!changes(episode, note)) return episode;
  const defined = Object.fromEntries(Object.entries(note).filter(([, v]) => v !== undefined));
  return (await amend(ws, episode, (e) => (changes(e, note) ? { ...e, ...defined } : undefined))) ?? episode;
}

/**
 * Stopped at its usage limit (`stop` undefined: at work again, its next prompt): its stop file, the one record of
 * the stop, which outlives its close for every other session's briefing; a ledger line.
 */
export async function noteStopped(
  ws: Workspace,
  episode: OpenEpisode,
  stop: { at: string; error: string; checkpoint?: string } | undefined,
): Promise<void> {
  const key = keyOf(episode);
  if (!stop) return removeStop(ws.layer, key);
  const checkpoint = stop.checkpoint ? { checkpoint: stop.checkpoint } : {};
  const who = {
    session_id: episode.session_id,
    provider: episode.provider,
    provider_session: episode.provider_session,
  };
  writeStop(ws.layer, key, { ...who, stopped_at: stop.at, error: stop.error, ...checkpoint });
  const line = await lineMaker(inEpisode(ws, episode));
  appendPrepared(inEpisode(ws, episode), line("session.stopped", { ...who, error: stop.error, ...checkpoint }));
  log.info(`episode ${episode.session_id} stopped at its usage limit (${stop.error})`);
}

/**
 * A closing session: a stop before it opened was carried on by it (others are told no more), and its own stop, once
 * carried on, goes.
 */
export async function carriedOn(ws: Workspace, episode: Pick<OpenEpisode, "session_id" | "opened_at">): Promise<void> {
  for (const { path, ...s } of readStops(ws.layer)) {
    const key = basename(path, ".json");
    if (s.session_id === episode.session_id) {
      if (s.carried_on) unlinkQuiet(path);
    } else if (!s.carried_on && s.stopped_at < episode.opened_at) {
      // Kept, marked, only for an episode still open: its own resume still says it stopped.
      const open = (await readEpisode(episodePath(ws.layer, key))).episode?.session_id === s.session_id;
      if (open) writeStop(ws.layer, key, { ...s, carried_on: episode.session_id });
      else unlinkQuiet(path);
    }
  }
}
