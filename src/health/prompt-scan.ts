/**
 * doctor's check of the captured prompts (`.ai/local/prompts/`): each one JSON of schema prompt/v1
 * with no conversation key. It runs on either thread (scan-worker.ts reads them beside the local
 * half's records), over a walk of its own of the prompts folder; what it found good is marked in
 * the verdicts it is given, by the change key its read saw, and the walk is told what each read saw.
 */
import { relative } from "node:path";
import { readLayerEntry } from "../lib/safe-read.ts";
import { TRANSCRIPT_KEYS } from "../session/schema.ts";
import type { Finding } from "./findings.ts";
import { pathOf, statKey, type Tree } from "./tree.ts";
import { FILES_PER_COLLECTION, type Verdicts } from "./verdicts.ts";
import { pacedCollector } from "../lib/runtime.ts";

/** The findings about the prompts under `dir` (walked as `tree`) of the checkout at `worktree`. */
export function checkPrompts(dir: string, worktree: string, tree: Tree, verdicts: Verdicts): Finding[] {
  const out: Finding[] = [];
  const collect = pacedCollector(FILES_PER_COLLECTION);
  for (const entry of tree.entries(dir).filter((e) => e.name.endsWith(".json"))) {
    const f = pathOf(entry);
    if (verdicts.remembering && verdicts.good(f, tree.keyAt(entry))) continue;
    collect();
    let record: Record<string, unknown> | undefined;
    let key = "";
    try {
      const read = readLayerEntry(f);
      tree.sawAt(entry, read.stats);
      key = statKey(read.stats);
      record = JSON.parse(read.text);
    } catch {
      record = undefined;
    }
    const transcript = record
      ? Object.keys(record).filter((k) => (TRANSCRIPT_KEYS as readonly string[]).includes(k))
      : [];
    if (!record || record.schema !== "prompt/v1" || transcript.length > 0) {
      out.push({
        level: "FAIL",
        category: "prompts",
        subject: relative(worktree, f),
        message: !record
          ? "not JSON"
          : transcript.length
            ? `carries conversation key(s): ${transcript.join(", ")}`
            : `schema ${JSON.stringify(record.schema)}`,
        reproduce: `cat ${relative(worktree, f)}`,
      });
    } else verdicts.mark(f, key);
  }

  return out;
}
