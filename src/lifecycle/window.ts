/**
 * The client's context windows of one episode. A window ends when the client compacts (its own
 * summary, or majordomus's fresh window answering for it); its ordinal is kept with the open
 * episode, so a resumed session goes on counting, and each change is a ledger line. The path of
 * the client's own transcript is kept beside it, for the history tools alone.
 */
import { readPlain } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendPrepared, lineMaker } from "../ledger/store.ts";
import { episodeKey } from "../session/keys.ts";
import { episodePath, parseEpisode, windowOf, writeEpisode, type OpenEpisode } from "../session/store.ts";

const LOCK_WAIT_MS = 3_000;

/** How an episode's window was replaced: the client's trigger word, or `fresh_window` when majordomus wrote the boot. */
export type WindowTrigger = "compact" | "fresh_window";

/** `<episode>:<ordinal>`, the name a boot gives its window. */
export const windowId = (episode: Pick<OpenEpisode, "session_id" | "window">, ordinal = windowOf(episode)): string =>
  `${episode.session_id}:${ordinal}`;

/**
 * Change the open record of `episode` under its lock, if it is still the same episode; returns
 * the record as written, or undefined when it closed (or another took its place) meanwhile. The
 * record is parsed outside the lock (the parser is asynchronous) and written only if its text is
 * still what was parsed, else read again: every racer that loses does so because another won, so
 * all of them are counted, each within the lock's wait. `entry`, when given, is the ledger line of
 * the change, appended inside the same lock, so the ledger tells the changes in the order they
 * were made.
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
    // The text compared under the lock below is the text parsed here: one read, one version.
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

/** A new window for the episode: its ordinal goes up by one, recorded with the episode and in the ledger. */
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

/** What a resumed start says of its client: the transcript path its event named, the processes that started the hook. */
export type ClientNote = { transcript_path?: string; client_processes?: string };

const changes = (e: OpenEpisode, note: ClientNote) =>
  Object.entries(note).some(([k, v]) => v !== undefined && e[k as keyof ClientNote] !== v);

/** Keep what a resumed start says of its client on the episode (written only when it changed). */
export async function noteClient(ws: Workspace, episode: OpenEpisode, note: ClientNote): Promise<OpenEpisode> {
  if (!changes(episode, note)) return episode;
  const defined = Object.fromEntries(Object.entries(note).filter(([, v]) => v !== undefined));
  return (await amend(ws, episode, (e) => (changes(e, note) ? { ...e, ...defined } : undefined))) ?? episode;
}
