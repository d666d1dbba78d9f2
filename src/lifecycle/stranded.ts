/**
 * Whether a start event has stranded episodes to recover, answered from the open records alone
 * (no ledger read, nothing of the close loaded): the start hook asks this on every event.
 */
import { readLayerFile } from "../lib/safe-read.ts";
import { sameCheckout } from "../repo/where.ts";
import { now, parseDuration, parseIsoTime } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { join } from "node:path";
import { openDir, openNames, readEpisode, type ReadEpisode } from "../session/store.ts";

/**
 * This checkout's open episodes (other than `except`) that opened before `cutoff` (ms), at most
 * `limit` of them. Each record is first looked at for its opening time alone (majordomus writes
 * them, one `key: value` a line), and only the old enough ones are read whole; the look stops at
 * the limit, so a start that asks whether there is one reads one, however many thousand are open.
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

/** A record's opening time from its one line (undefined when that line is not there: then it is read whole). */
function peekOpenedAt(path: string): number | undefined {
  let text = "";
  try {
    text = readLayerFile(path);
  } catch {
    // gone meanwhile, or unreadable: read whole (and reported there)
  }
  const at = /^opened_at: "?([^"\n]+)"?$/m.exec(text)?.[1];
  return at ? parseIsoTime(at)?.getTime() : undefined;
}

/**
 * Whether an open episode in this checkout (other than `except`) opened longer ago than
 * `session.stranded_after`: a look at the open records only, without reading the ledger, that
 * stops at the first. False means no recovery can close anything now.
 */
export async function anyStrandedCandidate(
  ws: Workspace,
  policy: LoadedPolicy | undefined,
  except?: string,
): Promise<boolean> {
  const ms = parseDuration(policy?.policy.session?.stranded_after ?? "");
  if (ms === undefined) return false;
  return (await openedBefore(ws, now().getTime() - ms, except, 1)).length > 0;
}
