/**
 * Connection episodes: a client without hooks keeps an episode over MCP. It attaches (the episode is opened, or
 * resumed, by the same code the hooks use), detaches (closed, as closed), or its connection drops (the episode waits,
 * `session.detached` in the ledger); a dropped episode nobody attaches to again within `mcp.reattach_grace_minutes` is
 * closed as interrupted, by the next server that starts or client that attaches, or by `recover`.
 */
import { isoStamp, now } from "../lib/clock.ts";
import { Failure } from "../lib/failure.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendEvent, newestFirst } from "../ledger/store.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { listOpen, type OpenEpisode } from "../session/store.ts";
import { sameCheckout } from "../repo/where.ts";
import { openEpisode } from "./open.ts";
import { closeEpisode } from "./close.ts";

/** How many ledger lines back the expiry looks for an episode's last word (the newest matter). */
const SCAN_LIMIT = 20_000;

export async function attach(
  ws: Workspace,
  client: string,
  externalId: string,
): Promise<{ episode: OpenEpisode; resumed: boolean }> {
  const opened = await openEpisode(ws, {
    ifOpen: "keep",
    openedBy: "connection",
    provider: client,
    providerSession: externalId,
  });
  await appendEvent(inEpisode(ws, opened.episode), "session.attached", {
    session_id: opened.episode.session_id,
    client,
    external_id: externalId,
  });
  return { episode: opened.episode, resumed: opened.kept };
}

export async function detached(
  ws: Workspace,
  episode: OpenEpisode,
  reason: string,
  lastMessageAt: Date,
): Promise<void> {
  await appendEvent(inEpisode(ws, episode), "session.detached", {
    session_id: episode.session_id,
    reason,
    last_message_at: isoStamp(lastMessageAt),
  });
}

export async function closeConnection(
  ws: Workspace,
  episode: OpenEpisode,
  outcome: "closed" | "interrupted",
  reason: string,
  policy: LoadedPolicy,
): Promise<string | undefined> {
  const result = await closeEpisode(inEpisode(ws, episode), {
    outcome,
    providerSession: episode.provider_session,
    reason,
    policy,
  });
  if (result.status !== "closed") return undefined;
  return result.path;
}

/** Close, as interrupted, every connection episode of this checkout whose connection dropped longer ago than the grace. */
export async function expireDetached(ws: Workspace, policy: LoadedPolicy): Promise<string[]> {
  const minutes = policy.policy.mcp?.reattach_grace_minutes;
  if (minutes === undefined)
    throw new Failure(
      "missing",
      "the policy declares no mcp.reattach_grace_minutes",
      "add it (e.g. `reattach_grace_minutes: 15` under mcp:)",
    );
  const open = (await listOpen(ws.layer))
    .map((o) => o.episode)
    .filter((e): e is OpenEpisode => e !== undefined && e.opened_by === "connection" && sameCheckout(e, ws.position));
  if (open.length === 0) return [];
  const pending = new Set(open.map((e) => e.session_id));
  const lastWord = new Map<string, { event: string; ts: string }>();
  let read = 0;
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (++read > SCAN_LIMIT || pending.size === 0) break;
    if (!parsed.ok) continue;
    const id =
      parsed.entry.session ?? (typeof parsed.entry.session_id === "string" ? parsed.entry.session_id : undefined);
    if (id && pending.has(id)) {
      lastWord.set(id, { event: parsed.entry.event, ts: parsed.entry.ts });
      pending.delete(id);
    }
  }
  const cutoff = now().getTime() - minutes * 60_000;
  const closed: string[] = [];
  for (const e of open) {
    const last = lastWord.get(e.session_id);
    if (last?.event !== "session.detached" || Date.parse(last.ts) > cutoff) continue;
    if (
      await closeConnection(
        ws,
        e,
        "interrupted",
        `its connection dropped at ${last.ts} and no client attached again within ${minutes} minutes`,
        policy,
      )
    )
      closed.push(e.session_id);
  }
  return closed;
}
