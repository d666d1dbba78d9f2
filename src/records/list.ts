/** The records in this checkout's folder, newest first, each with both labels: the newest page of them, or every one. */
import { field } from "../lib/quote.ts";
import { join, relative } from "node:path";
import type { Layer } from "../layer/manifest.ts";
import type { Position } from "../repo/where.ts";
import type { Policy } from "../policy/index.ts";
import type { RecordKind } from "./kinds.ts";
import { divergence, freshness, type Divergence, type Freshness } from "./labels.ts";
import { newer, readRecord, type Loaded } from "./record.ts";
import { listNames, storeOf } from "./store.ts";

export type Row = {
  path: string;
  created_at: string;
  branch: string;
  task_id: string;
  how: string;
  divergence: Divergence;
  freshness: Freshness;
};
export type Listing = { rows: Row[]; rejected: Array<{ path: string; reason: string }>; more: boolean };

const NAMED = /^(\d{8}T\d{9}Z)--(\d+)--/;

/**
 * The newest `limit` found by name (creation time and sequence), so the rest are never read; a name of another shape
 * is always read.
 */
function pageOf(names: string[], limit: number): { read: string[]; more: boolean } {
  if (limit <= 0) return { read: names, more: false };
  const placed: Array<{ name: string; stamp: string; seq: number }> = [];
  const unplaced: string[] = [];
  for (const name of names) {
    const m = NAMED.exec(name);
    if (m) placed.push({ name, stamp: m[1]!, seq: Number(m[2]) });
    else unplaced.push(name);
  }
  placed.sort((a, b) => (a.stamp !== b.stamp ? (a.stamp < b.stamp ? 1 : -1) : b.seq - a.seq));
  return { read: [...placed.slice(0, limit).map((p) => p.name), ...unplaced], more: placed.length > limit };
}

export async function listRecords(
  kind: RecordKind,
  layer: Layer,
  position: Position,
  policy: Policy | undefined,
  at: Date,
  limit = 0,
): Promise<Listing> {
  const ws = { layer, position };
  const store = storeOf(ws.layer, kind);
  const page = pageOf(listNames(store.dir), limit);
  const loaded: Loaded[] = [];
  const rejected: Listing["rejected"] = [];
  for (const file of page.read) {
    const path = join(store.dir, file);
    const parsed = await readRecord(kind, path, file);
    if (parsed.ok) loaded.push(parsed.record);
    else rejected.push({ path: relative(ws.position.worktree, path), reason: parsed.reason });
  }
  loaded.sort((a, b) => (newer(a.meta, b.meta) ? -1 : newer(b.meta, a.meta) ? 1 : 0));
  const more = page.more || (limit > 0 && loaded.length > limit);
  if (limit > 0) loaded.splice(limit);
  // Many records share a commit: git is asked once per (branch, head).
  const labels = new Map<string, Promise<Divergence>>();
  const rows: Row[] = [];
  for (const r of loaded) {
    const key = `${field(r.meta.branch)}\0${r.meta.head}`;
    if (!labels.has(key)) labels.set(key, divergence(r.meta, ws.position, "commits"));
    rows.push({
      path: relative(ws.position.worktree, r.path),
      created_at: r.meta.created_at,
      branch: r.meta.branch,
      task_id: r.meta.task_id,
      how: r.meta.how,
      divergence: await labels.get(key)!,
      freshness: freshness(r.meta.created_at, at, policy).state,
    });
  }
  return { rows, rejected, more };
}
