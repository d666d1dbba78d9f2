/**
 * doctor's check of the closed episode records (`.ai/repo/sessions/`): each read once, front matter
 * only, against its schema, with no conversation key and no absolute path, and one record per
 * episode. The records are checked in parts (`checkClosedPart`): the worker thread (scan-worker.ts)
 * checks them after the ledger and the prompts, and the main thread, done with the local half's
 * records, takes the rest of the list with it through a shared cursor (lib/shared-cursor.ts).
 * `closedFindings` says what the parts found, in the records' name order, whichever thread read
 * which. What a part found good is marked in the verdicts it is given.
 */
import { join } from "node:path";
import { closedNames, readClosedEntry } from "../session/closed.ts";
import type { Finding } from "./findings.ts";
import { statKey } from "./tree.ts";
import { FILES_PER_COLLECTION, ownCopy } from "./verdicts.ts";
import { pacedCollector } from "../lib/runtime.ts";
import { taker } from "../lib/shared-cursor.ts";
import type { Verdicts } from "./verdicts.ts";

/**
 * What one part of the check found: each finding with the index of its record in the name-ordered
 * list, the episode ids of the records it found good (or remembered good), and how many it rejected.
 */
export type ClosedPart = { found: Array<[number, Finding]>; ids: string[]; rejected: number };

/**
 * Check the records of `dir` (the sessions folder of the checkout at `worktree`) that this thread
 * takes: all of them alone, its share with a `cursor` shared with another thread, none when that
 * thread came first with another list. One record at a time: ten thousand are never all held.
 */
export async function checkClosedPart(
  dir: string,
  worktree: string,
  verdicts: Verdicts,
  cursor?: SharedArrayBuffer,
): Promise<ClosedPart> {
  const part: ClosedPart = { found: [], ids: [], rejected: 0 };
  const names = closedNames(dir);
  const take = taker(cursor, names);
  if (!take) return part;
  const collect = pacedCollector(FILES_PER_COLLECTION);
  for (let i = take(); i < names.length; i = take()) {
    const was = verdicts.good(join(dir, names[i]!));
    if (was?.id !== undefined) {
      part.ids.push(was.id);
      continue;
    }
    const entry = await readClosedEntry(dir, names[i]!, worktree);
    collect();
    if (!entry.ok) {
      part.rejected++;
      part.found.push([
        i,
        {
          level: "FAIL",
          category: "sessions",
          subject: entry.path,
          message: entry.reason,
          reproduce: "majordomus session list --all",
        },
      ]);
      continue;
    }
    const r = entry.record;
    const id = ownCopy(String(r.meta.session_id));
    part.ids.push(id);
    const absolute = Object.entries(r.meta).find(([, v]) =>
      (Array.isArray(v) ? v : [v]).some((x) => typeof x === "string" && x.startsWith("/")),
    );
    if (absolute)
      part.found.push([
        i,
        {
          level: "FAIL",
          category: "sessions",
          subject: r.path,
          message: `${absolute[0]} holds an absolute path; shared records name none`,
          reproduce: `majordomus session show ${r.meta.session_id}`,
        },
      ]);
    else verdicts.mark(join(worktree, r.path), statKey(entry.stats), id);
  }
  return part;
}

/** The findings about the closed records, from every part of the check (pure): in name order, then the episodes with more than one record (by id), then the tally. */
export function closedFindings(parts: readonly ClosedPart[]): Finding[] {
  const out = parts
    .flatMap((p) => p.found)
    .sort((a, b) => a[0] - b[0])
    .map(([, f]) => f);
  const ids = new Map<string, number>();
  for (const id of parts.flatMap((p) => p.ids)) ids.set(id, (ids.get(id) ?? 0) + 1);
  for (const [id, n] of [...ids].sort((a, b) => a[0].localeCompare(b[0])))
    if (n > 1)
      out.push({
        level: "FAIL",
        category: "sessions",
        subject: id,
        message: `${n} closed records for one episode`,
        reproduce: `majordomus session list --all`,
      });
  const rejected = parts.reduce((sum, p) => sum + p.rejected, 0);
  if (rejected === 0)
    out.push({
      level: "OK",
      category: "sessions",
      subject: "repo/sessions",
      message: `${parts.reduce((sum, p) => sum + p.ids.length, 0)} closed record(s), session/v1, no conversation keys`,
      reproduce: "majordomus session list --all",
    });
  return out;
}
