/**
 * Telling the sessions live beside a new episode that it opened: a notice in each one's own local
 * half (its worktree's), taken by its next prompt hook (session/notices.ts), and one ledger line.
 */
import { loadLayer } from "../layer/manifest.ts";
import { appendEvent } from "../ledger/store.ts";
import type { Live } from "../facts/live.ts";
import { leaveNotice } from "../session/notices.ts";
import type { OpenEpisode } from "../session/store.ts";
import type { Workspace } from "../workspace/workspace.ts";

export async function tellLive(
  ws: Workspace,
  episode: Pick<OpenEpisode, "session_id" | "provider" | "opened_at">,
  live: readonly Live[],
  taskId: string | undefined,
): Promise<void> {
  for (const l of live) {
    const layer = l.here ? ws.layer : await loadLayer(l.worktree);
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
