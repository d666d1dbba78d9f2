/**
 * Telling the sessions live beside a new episode that it opened: a notice in each one's own local
 * half (its worktree's), taken by its next prompt hook (session/notices.ts), and one ledger line.
 */
import type { Layer } from "../layer/manifest.ts";
import { loadGuardedLayer } from "../layer/guard.ts";
import { log } from "../lib/log.ts";
import { appendEvent } from "../ledger/store.ts";
import type { Live } from "../facts/live.ts";
import { leaveNotice } from "../session/notices.ts";
import type { OpenEpisode } from "../session/store.ts";
import type { Workspace } from "../workspace/workspace.ts";

/** Another worktree's layer, checked as this one's was (a link where a folder belongs is refused); undefined when it cannot be used. */
async function otherLayer(worktree: string): Promise<Layer | undefined> {
  try {
    return await loadGuardedLayer(worktree);
  } catch (err) {
    log.warn(`the session in ${worktree} was not told: ${(err as Error).message}`);
    return undefined;
  }
}

export async function tellLive(
  ws: Workspace,
  episode: Pick<OpenEpisode, "session_id" | "provider" | "opened_at">,
  live: readonly Live[],
  taskId: string | undefined,
): Promise<void> {
  for (const l of live) {
    const layer = l.here ? ws.layer : await otherLayer(l.worktree);
    if (!layer) continue;
    leaveNotice(layer, l.session_id, {
      session_id: episode.session_id,
      provider: episode.provider,
      opened_at: episode.opened_at,
      worktree: ws.position.worktree,
      here: l.here,
      ...(taskId ? { task_id: taskId } : {}),
    });
  }
  await appendEvent(ws, "session.shared", { with: live.map((l) => l.session_id) });
}
