/** What a closing episode was handed, read back (the start recorded it), and what its transcript shows it did. */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { parseClaim } from "../records/claims.ts";
import { sections, trimmedSection } from "../records/markdown.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { readRecord } from "../records/record.ts";
import { namedIn, sessionActions, uptakeOf, type Uptake } from "../transcript/uptake.ts";
import type { OpenEpisode } from "../session/store.ts";

/** A record path as the start hook writes it: inside the layer, a Markdown file. */
export const RECORD_PATH = /^\.ai\/(?:[\w.-]+\/)*[\w.-]+\.md$/;

export async function gatherUptake(
  worktree: string,
  episode: OpenEpisode,
  handed: string,
  changed?: readonly string[],
): Promise<Uptake> {
  const unread = (cause: string): Uptake => ({ state: "not_provable", handed, named: [], acted_on: [], cause });
  if (!RECORD_PATH.test(handed) || handed.split("/").includes(".."))
    return unread("the handed record's path is not one the start hook writes");
  const read = await readRecord(RECORD_KINDS.handover, join(worktree, handed), handed);
  if (!read.ok) return unread(`the handed record can no longer be read: ${read.reason}`);
  const next = trimmedSection(sections(read.record.body).get("Next Action") ?? []).join("\n");
  const cited = (read.record.meta.claims ?? []).flatMap((c) => {
    const claim = parseClaim(c);
    return claim?.kind === "path" ? [claim.path] : [];
  });
  const roots = [worktree];
  try {
    roots.push(realpathSync(worktree));
  } catch {}
  const did = await sessionActions(episode.provider, episode.transcript_path, episode.provider_session, roots);
  return uptakeOf(handed, namedIn(next), cited, did, changed ? new Set(changed) : undefined);
}
