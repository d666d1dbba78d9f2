/** Every record in this checkout's folder, newest first, each with both labels. */
import { relative } from "node:path";
import type { Layer } from "../layer/manifest.ts";
import type { Position } from "../repo/where.ts";
import type { Policy } from "../policy/index.ts";
import type { RecordKind } from "./kinds.ts";
import { divergence, freshness, type Divergence, type Freshness } from "./labels.ts";
import { newer, type Loaded } from "./record.ts";
import { readAll, storeOf } from "./store.ts";

export type Row = { path: string; created_at: string; branch: string; task_id: string; how: string; divergence: Divergence; freshness: Freshness };
export type Listing = { rows: Row[]; rejected: Array<{ path: string; reason: string }> };

export async function listRecords(kind: RecordKind, layer: Layer, position: Position, policy: Policy | undefined, at: Date): Promise<Listing> {
  const here = { layer, position };
  const loaded: Loaded[] = [];
  const rejected: Listing["rejected"] = [];
  for (const row of await readAll(storeOf(here.layer, kind))) {
    if (row.parsed.ok) loaded.push(row.parsed.record);
    else rejected.push({ path: relative(here.position.worktree, row.path), reason: row.parsed.reason });
  }
  loaded.sort((a, b) => (newer(a.meta, b.meta) ? -1 : newer(b.meta, a.meta) ? 1 : 0));
  // Many records share a commit: ask git once per (branch, head).
  const labels = new Map<string, Promise<Divergence>>();
  const rows: Row[] = [];
  for (const r of loaded) {
    const key = `${r.meta.branch}\0${r.meta.head}`;
    if (!labels.has(key)) labels.set(key, divergence(r.meta, here.position));
    rows.push({
      path: relative(here.position.worktree, r.path),
      created_at: r.meta.created_at,
      branch: r.meta.branch,
      task_id: r.meta.task_id,
      how: r.meta.how,
      divergence: await labels.get(key)!,
      freshness: freshness(r.meta.created_at, at, policy).state,
    });
  }
  return { rows, rejected };
}
