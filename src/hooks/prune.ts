/**
 * `capture prune`: apply `prompts.retention_max_days`, then `prompts.retention_max_bytes` (oldest
 * first). A pruned record keeps every field but its text, which becomes null beside a note of
 * when, how many bytes, and the digest it had. Records are never deleted.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { now, isoStamp } from "../lib/clock.ts";
import { writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { requireNumber } from "../policy/index.ts";
import { promptsDir } from "./prompt.ts";

export type PruneResult = { records: number; pruned: number; bytes_left: number; dry_run: boolean };

export async function prune(ws: Workspace, options: { dryRun: boolean }): Promise<PruneResult> {
  const policy = await ws.policy();
  const maxDays = requireNumber(policy, "prompts.retention_max_days");
  const maxBytes = requireNumber(policy, "prompts.retention_max_bytes");
  const dir = promptsDir(ws);
  const at = now();
  const records: Array<{ path: string; data: Record<string, unknown> }> = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    names = [];
  }
  for (const name of names) {
    try {
      records.push({ path: join(dir, name), data: JSON.parse(readLayerFile(join(dir, name))) });
    } catch {
      // an unreadable record is doctor's to report; prune leaves it alone
    }
  }
  records.sort((a, b) => String(a.data.captured_at).localeCompare(String(b.data.captured_at)));
  const live = records.filter((r) => typeof r.data.text === "string");
  const cutoff = at.getTime() - maxDays * 86_400_000;
  const chosen = new Set(live.filter((r) => Date.parse(String(r.data.captured_at)) < cutoff));
  let bytes = live.filter((r) => !chosen.has(r)).reduce((n, r) => n + Buffer.byteLength(String(r.data.text)), 0);
  for (const r of live) {
    if (bytes <= maxBytes) break;
    if (chosen.has(r)) continue;
    chosen.add(r);
    bytes -= Buffer.byteLength(String(r.data.text));
  }
  if (!options.dryRun) {
    for (const r of chosen) {
      const text = String(r.data.text);
      const pruned = { ...r.data, text: null, pruned_at: isoStamp(at), pruned_bytes: Buffer.byteLength(text) };
      writeFileAtomic(r.path, `${JSON.stringify(pruned, null, 2)}\n`, 0o600);
    }
    if (chosen.size > 0)
      await appendEvent(ws, "prompts.pruned", { pruned: chosen.size, records: records.length, bytes_left: bytes });
  }
  return { records: records.length, pruned: chosen.size, bytes_left: bytes, dry_run: options.dryRun };
}
