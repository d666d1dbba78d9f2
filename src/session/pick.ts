/**
 * Which episode a session command is about. A hook names its client session; a person at a terminal usually names
 * nothing, and then the one open episode of this checkout is the answer (said so), several open episodes are listed for
 * them to choose from, and an id may be either majordomus's episode id (`s-…`) or the client's own session id.
 */
import type { Layer } from "../layer/manifest.ts";
import { sameCheckout, type Position } from "../repo/where.ts";
import { attributedEpisode } from "./attribution.ts";
import { listOpen, type OpenEpisode } from "./store.ts";

/** Why this episode was taken: named by id, the process runs inside it, or it is the only one open. */
export type Because = "named" | "this process's episode" | "the only open episode of this checkout";

export type Pick =
  | { kind: "open"; episode: OpenEpisode; because: Because }
  | { kind: "closed-id"; id: string }
  | { kind: "none" }
  | { kind: "several"; open: OpenEpisode[] };

export async function openEpisodes(layer: Layer, position: Position): Promise<OpenEpisode[]> {
  const open = (await listOpen(layer)).flatMap((o) =>
    o.episode && sameCheckout(o.episode, position) ? [o.episode] : [],
  );
  return open.sort((a, b) => a.opened_at.localeCompare(b.opened_at));
}

/** Whether `id` names this episode: its own id or its client's session id. */
export function names(episode: { session_id: unknown; provider_session?: unknown }, id: string): boolean {
  return episode.session_id === id || (episode.provider_session !== "none" && episode.provider_session === id);
}

export async function pickEpisode(layer: Layer, position: Position, id?: string): Promise<Pick> {
  const open = await openEpisodes(layer, position);
  if (id !== undefined) {
    const found = open.find((e) => names(e, id));
    return found ? { kind: "open", episode: found, because: "named" } : { kind: "closed-id", id };
  }
  const mine = await attributedEpisode(layer, position);
  if (mine) return { kind: "open", episode: mine, because: "this process's episode" };
  if (open.length === 1) return { kind: "open", episode: open[0]!, because: "the only open episode of this checkout" };
  return open.length === 0 ? { kind: "none" } : { kind: "several", open };
}
