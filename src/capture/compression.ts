/**
 * For a client whose compaction event is advisory (it fires on every check, and nothing follows a
 * real compression: Gemini's PreCompress): whether the client has compressed its history since the
 * episode's last compression checkpoint, read from the client's own transcript. Gemini writes the
 * compressed history back with one user message holding its `<state_snapshot>`; each compression
 * is a new such message. A checkpoint is derived once per new one: never once per turn.
 */
import { readPlain } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { newestFirst } from "../ledger/store.ts";
import { pick } from "../providers/index.ts";
import type { Payload } from "./payload.ts";

/** How far back the episode's own compression checkpoints are looked for (the newest matter). */
const SCAN_LIMIT = 20_000;
/** What follows a snapshot message's timestamp; the message's id is read just before it. */
const SNAPSHOT = '","type":"user","content":[{"text":"<state_snapshot>';
const ID_BEFORE = /"id":"([^"]+)","timestamp":"[^"]*$/;

/** The compressions the client's transcript shows (distinct snapshot messages), or undefined when it cannot be read. */
export function compressionsIn(payload: Payload): number | undefined {
  const path = pick(payload.data, ["transcript_path"]);
  if (!path || !path.endsWith(".jsonl")) return undefined;
  // The client's own file, never through a link, and only a regular file.
  const text = readPlain(path);
  if (text === undefined) return undefined;
  // Found with the native indexOf and only then read back: a regular expression over a transcript
  // of megabytes took ~50 ms of every turn (this event fires on every check).
  const ids = new Set<string>();
  for (let at = text.indexOf(SNAPSHOT); at !== -1; at = text.indexOf(SNAPSHOT, at + SNAPSHOT.length)) {
    const id = ID_BEFORE.exec(text.slice(Math.max(0, at - 512), at))?.[1];
    if (id) ids.add(id);
  }
  return ids.size;
}

/**
 * The compressions this client session's checkpoints already answered: the highest `compressions`
 * count on a checkpoint of any of its episodes (a resumed session is a new episode of the same
 * transcript, whose earlier compressions were answered by the episode before).
 */
export function compressionsAnswered(ws: Workspace, providerSession: string): number {
  const answered = new Map<string, number>();
  const mine = new Set<string>();
  let read = 0;
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (++read > SCAN_LIMIT) break;
    if (!parsed.ok) continue;
    const e = parsed.entry;
    if (e.event === "task.checkpoint" && typeof e.compressions === "number" && e.session) answered.set(e.session, Math.max(answered.get(e.session) ?? 0, e.compressions));
    if (e.event === "session.started" && e.provider_session === providerSession && typeof e.session_id === "string") {
      mine.add(e.session_id);
      // Counts only grow: the newest episode of this session that answered one holds the highest
      // (its checkpoints are newer than its start, so all were read). Nothing older can change it.
      if (answered.has(e.session_id)) break;
    }
  }
  return Math.max(0, ...[...answered].filter(([session]) => mine.has(session)).map(([, n]) => n));
}

/** A compression the episode has not answered yet: the client's count to record with its checkpoint, or undefined. */
export function newCompression(ws: Workspace, payload: Payload, providerSession: string | undefined): number | undefined {
  const seen = compressionsIn(payload);
  if (seen === undefined || seen === 0 || providerSession === undefined) return undefined;
  return seen > compressionsAnswered(ws, providerSession) ? seen : undefined;
}
