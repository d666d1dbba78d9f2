/** Whether a start has stranded episodes to recover, from the open records alone: asked on every start. */
import { readLayerFile } from "../lib/safe-read.ts";
import { sameCheckout } from "../repo/where.ts";
import { now, parseDuration, parseIsoTime } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { join } from "node:path";
import { openDir, openNames, readEpisode, type ReadEpisode } from "../session/store.ts";

/**
 * Open episodes older than `cutoff`, at most `limit`: each looked at for its opening line first and read whole only
 * when old enough, so asking whether there is one reads one.
 */
export async function openedBefore(
  ws: Workspace,
  cutoff: number,
  except?: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<Array<{ key: string } & ReadEpisode>> {
  const out: Array<{ key: string } & ReadEpisode> = [];
  const dir = openDir(ws.layer);
  for (const name of openNames(ws.layer)) {
    if (out.length >= limit) break;
    const path = join(dir, name);
    const openedAt = peekOpenedAt(path);
    if (openedAt !== undefined && openedAt >= cutoff) continue;
    const read = await readEpisode(path);
    const e = read.episode;
    if (
      e &&
      sameCheckout(e, ws.position) &&
      e.session_id !== except &&
      (parseIsoTime(e.opened_at)?.getTime() ?? 0) < cutoff
    )
      out.push({ key: name.slice(0, -".yaml".length), ...read });
  }
  return out;
}

function peekOpenedAt(path: string): number | undefined {
  let text = "";
  try {
    text = readLayerFile(path);
  } catch {}
  const at = /^opened_at: "?([^"\n]+)"?$/m.exec(text)?.[1];
  return at ? parseIsoTime(at)?.getTime() : undefined;
}

export async function anyStrandedCandidate(
  ws: Workspace,
  policy: LoadedPolicy | undefined,
  except?: string,
): Promise<boolean> {
  const ms = parseDuration(policy?.policy.session?.stranded_after ?? "");
  if (ms === undefined) return false;
  return (await openedBefore(ws, now().getTime() - ms, except, 1)).length > 0;
}
