/** Reading closed session records back (`.ai/repo/sessions/`), newest first, never by file time. */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { parseYaml } from "../lib/runtime.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { RECORD_KEYS, TRANSCRIPT_KEYS } from "./schema.ts";

export type ClosedRecord = { path: string; meta: Record<string, unknown>; body: string };
export type ClosedListing = { records: ClosedRecord[]; rejected: Array<{ path: string; reason: string }> };

export async function readClosed(here: { layer: Layer; position: { worktree: string } }): Promise<ClosedListing> {
  const dir = sectionPath(here.layer, "sessions");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".md") && n !== "README.md" && !n.startsWith("."));
  } catch {
    return { records: [], rejected: [] };
  }
  const out: ClosedListing = { records: [], rejected: [] };
  for (const name of names) {
    const path = join(dir, name);
    const rel = relative(here.position.worktree, path);
    const split = splitFrontMatter(readFileSync(path, "utf8"));
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
    out.records.push({ path: rel, meta, body: split.body });
  }
  out.records.sort((a, b) => String(b.meta.closed_at).localeCompare(String(a.meta.closed_at)) || b.path.localeCompare(a.path));
  return out;
}
