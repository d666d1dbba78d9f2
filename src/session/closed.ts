/** Reading closed session records back (`.ai/repo/sessions/`), newest first, never by file time. */
import { readLayerFile, unreadable } from "../lib/fsx.ts";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { parseYaml } from "../lib/runtime.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { RECORD_KEYS, TRANSCRIPT_KEYS } from "./schema.ts";

export type ClosedRecord = { path: string; meta: Record<string, unknown>; body: string };
export type ClosedListing = { records: ClosedRecord[]; rejected: Array<{ path: string; reason: string }> };

/**
 * `limit` (with `branch`): only the newest that many records of that branch are read, newest first
 * by name (a record's name starts with its closing time): a listing costs what it shows, not what
 * the folder holds. `more` then says whether older ones exist.
 */
export async function readClosed(here: { layer: Layer; position: { worktree: string } }, options: { limit?: number; branch?: string; skip?: (path: string) => boolean; bodies?: false } = {}): Promise<ClosedListing & { more: boolean }> {
  const dir = sectionPath(here.layer, "sessions");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".md") && n !== "README.md" && !n.startsWith("."));
  } catch {
    return { records: [], rejected: [], more: false };
  }
  const out: ClosedListing & { more: boolean } = { records: [], rejected: [], more: false };
  const limited = options.limit !== undefined && options.limit > 0;
  if (limited) names.sort().reverse();
  // Names carry the closing second only: once enough are read, the rest of that second is read too,
  // so the newest by the millisecond are among them.
  const second = (name: string) => name.slice(0, name.indexOf("--"));
  let full: string | undefined;
  for (const name of names) {
    if (limited && full === undefined && out.records.filter((r) => options.branch === undefined || r.meta.branch === options.branch).length >= options.limit!) full = second(out.records.at(-1)?.path.split("/").pop() ?? name);
    if (full !== undefined && second(name) !== full) {
      out.more = true;
      break;
    }
    const path = join(dir, name);
    if (options.skip?.(path)) continue;
    const rel = relative(here.position.worktree, path);
    let text: string;
    try {
      text = readLayerFile(path);
    } catch (err) {
      // A link a stranger's repository tracks among the records (to /dev/zero, say) is named, never read.
      out.rejected.push({ path: rel, reason: unreadable(err, path) });
      continue;
    }
    const split = splitFrontMatter(text);
    if (!split) {
      out.rejected.push({ path: rel, reason: "no front matter" });
      continue;
    }
    let meta: Record<string, unknown>;
    try {
      meta = (await parseYaml(split.frontMatter)) as Record<string, unknown>;
    } catch (err) {
      out.rejected.push({ path: rel, reason: `front matter is not YAML: ${(err as Error).message}` });
      continue;
    }
    if (meta?.schema !== "session/v1") {
      out.rejected.push({ path: rel, reason: `schema ${JSON.stringify(meta?.schema ?? null)}; this majordomus reads session/v1` });
      continue;
    }
    const transcript = Object.keys(meta).filter((k) => (TRANSCRIPT_KEYS as readonly string[]).includes(k));
    const unknown = Object.keys(meta).filter((k) => !(RECORD_KEYS as readonly string[]).includes(k));
    if (transcript.length > 0 || unknown.length > 0) {
      out.rejected.push({ path: rel, reason: transcript.length ? `carries conversation key(s): ${transcript.join(", ")}` : `undeclared key(s): ${unknown.join(", ")}` });
      continue;
    }
    // A reader of the front matter alone (doctor, over every record) does not keep the bodies.
    out.records.push({ path: rel, meta, body: options.bodies === false ? "" : split.body });
  }
  out.records.sort((a, b) => String(b.meta.closed_at).localeCompare(String(a.meta.closed_at)) || b.path.localeCompare(a.path));
  return out;
}
