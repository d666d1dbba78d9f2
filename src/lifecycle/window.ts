/**
 * An episode's context windows: one ends when the client compacts (or majordomus's fresh window answers for it). The
 * ordinal stays with the open episode, so a resumed session goes on counting; each change is a ledger line.
 */
import { readPlain } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendPrepared, lineMaker } from "../ledger/store.ts";
import { episodeKey } from "../session/keys.ts";
import {
  episodePath,
  parseEpisode,
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
  const key = episodeKey(episode.provider_session === "none" ? undefined : episode.provider_session);
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

/** The episode without its stop. */
function unstopped(e: OpenEpisode): OpenEpisode {
  const { stopped_at: _at, stopped_error: _error, stopped_checkpoint: _checkpoint, ...kept } = e;
  return kept;
}

/**
 * Stopped at its usage limit (`stop` undefined: at work again, its next prompt): on the open record, for its own
 * resumed briefing, and in its stop file, which outlives its close for every other session's. A ledger line.
 */
export async function noteStopped(
  ws: Workspace,
  episode: OpenEpisode,
  stop: { at: string; error: string; checkpoint?: string } | undefined,
): Promise<void> {
  const key = episodeKey(episode.provider_session === "none" ? undefined : episode.provider_session);
  if (!stop) {
    removeStop(ws.layer, key);
    if (episode.stopped_at !== undefined)
      await amend(ws, episode, (e) => (e.stopped_at === undefined ? undefined : unstopped(e)));
    return;
  }
  writeStop(ws.layer, key, {
    session_id: episode.session_id,
    provider: episode.provider,
    provider_session: episode.provider_session,
    stopped_at: stop.at,
    error: stop.error,
    ...(stop.checkpoint ? { checkpoint: stop.checkpoint } : {}),
  });
  const line = await lineMaker(inEpisode(ws, episode));
  const marked = (e: OpenEpisode): OpenEpisode => ({
    ...unstopped(e),
    stopped_at: stop.at,
    stopped_error: stop.error,
    ...(stop.checkpoint ? { stopped_checkpoint: stop.checkpoint } : {}),
  });
  await amend(ws, episode, marked, () =>
    line("session.stopped", {
      session_id: episode.session_id,
      provider: episode.provider,
      provider_session: episode.provider_session,
      error: stop.error,
      ...(stop.checkpoint ? { checkpoint: stop.checkpoint } : {}),
    }),
  );
  log.info(`episode ${episode.session_id} stopped at its usage limit (${stop.error})`);
}

/** A session that opened after another stopped, and ended: it carried that work on, so the stop is told no more. */
export function carriedOn(ws: Workspace, episode: Pick<OpenEpisode, "session_id" | "opened_at">): void {
  for (const s of readStops(ws.layer))
    if (s.session_id !== episode.session_id && s.stopped_at < episode.opened_at) unlinkQuiet(s.path);
}
