/**
 * Whether a start event has stranded episodes to recover, answered from the open records alone
 * (no ledger read, nothing of the close loaded): the start hook asks this on every event.
 */
import { sameCheckout } from "../repo/where.ts";
import { now, parseDuration, parseIsoTime } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDir, readEpisode, type ReadEpisode } from "../session/store.ts";

/**
 * This checkout's open episodes (other than `except`) that opened before `cutoff` (ms). Each record
 * is first looked at for its opening time alone (majordomus writes them, one `key: value` a line),
 * and only the old enough ones are read whole: a start that resumes beside thousands of open
 * episodes reads none of them whole.
 */
export async function openedBefore(here: Workspace, cutoff: number, except?: string): Promise<Array<{ key: string } & ReadEpisode>> {
  const old = peekOpen(here.layer).filter((p) => p.openedAt === undefined || p.openedAt < cutoff);
  const out: Array<{ key: string } & ReadEpisode> = [];
  for (const p of old) {
    const read = await readEpisode(p.path);
    const e = read.episode;
    if (e && sameCheckout(e, here.position) && e.session_id !== except && (parseIsoTime(e.opened_at)?.getTime() ?? 0) < cutoff) out.push({ key: p.key, ...read });
  }
  return out;
}

/** Every open record's key and opening time, from one line of each (undefined when that line is not there: then it is read whole). */
function peekOpen(layer: Workspace["layer"]): Array<{ key: string; path: string; openedAt?: number }> {
  let names: string[];
  try {
    names = readdirSync(openDir(layer)).filter((n) => n.endsWith(".yaml"));
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    const path = join(openDir(layer), name);
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch {
      // gone meanwhile, or unreadable: read whole below (and reported there)
    }
    const at = /^opened_at: "?([^"\n]+)"?$/m.exec(text)?.[1];
    return { key: name.slice(0, -".yaml".length), path, openedAt: at ? parseIsoTime(at)?.getTime() : undefined };
  });
}

/**
 * How many open episodes in this checkout (other than `except`) opened longer ago than
 * `session.stranded_after`: a look at the open records only, without reading the ledger. Zero
 * means no recovery can close anything now.
 */
export async function strandedCandidates(here: Workspace, policy: LoadedPolicy | undefined, except?: string): Promise<number> {
  const ms = parseDuration(policy?.policy.session?.stranded_after ?? "");
  if (ms === undefined) return 0;
  return (await openedBefore(here, now().getTime() - ms, except)).length;
}
