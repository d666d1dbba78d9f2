/** What a closing episode was handed, read back (the start recorded it), and what its transcript shows it did. */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readLayerFile } from "../lib/safe-read.ts";
import { parseClaim } from "../records/claims.ts";
import { sections, splitFrontMatter, trimmedSection } from "../records/markdown.ts";
import { parseYaml } from "../lib/runtime.ts";
import { actionsOf, namedIn, uptakeOf, type Uptake } from "../transcript/uptake.ts";
import type { OpenEpisode } from "../session/store.ts";

/** A record path as the start hook writes it: inside the layer, a Markdown file. */
export const RECORD_PATH = /^\.ai\/(?:[\w.-]+\/)*[\w.-]+\.md$/;

export async function gatherUptake(worktree: string, episode: OpenEpisode, handed: string): Promise<Uptake> {
  const unread = (cause: string): Uptake => ({ state: "not_provable", handed, named: [], acted_on: [], cause });
  if (!RECORD_PATH.test(handed) || handed.split("/").includes(".."))
    return unread("the handed record's path is not one the start hook writes");
  let next = "";
  let cited: string[] = [];
  try {
    const split = splitFrontMatter(readLayerFile(join(worktree, handed)));
    next = trimmedSection(sections(split?.body ?? "").get("Next Action") ?? []).join("\n");
    const claims = ((await parseYaml(split?.frontMatter ?? "")) as { claims?: unknown } | null)?.claims;
    cited = (Array.isArray(claims) ? claims : []).flatMap((c) => {
      const claim = typeof c === "string" ? parseClaim(c) : undefined;
      return claim?.kind === "path" ? [claim.path] : [];
    });
  } catch {
    return unread("the handed record can no longer be read");
  }
  const roots = [worktree];
  try {
    roots.push(realpathSync(worktree));
  } catch {}
  return uptakeOf(handed, namedIn(next), cited, actionsOf(episode.provider, episode.transcript_path, roots));
}
