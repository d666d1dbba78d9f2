/**
 * doctor's check of the closed records: front matter only, against its schema, no conversation key, no absolute path,
 * one record per episode. Runs on either thread.
 */
import { join } from "node:path";
import { eachClosedIn, type ClosedEntry } from "../session/closed.ts";
import { finding, type Finding } from "./findings.ts";
import { statKey } from "./tree.ts";
import { FILES_PER_COLLECTION, ownCopy } from "./verdicts.ts";
import { pacedCollector } from "../lib/runtime.ts";
import type { Verdicts } from "./verdicts.ts";

const LIST = "majordomus session list --all";

/** A record's key that holds an absolute path (shared records name none), if any. */
const absoluteKey = (meta: Record<string, unknown>) =>
  Object.entries(meta).find(([, v]) =>
    (Array.isArray(v) ? v : [v]).some((x) => typeof x === "string" && x.startsWith("/")),
  )?.[0];

export async function checkClosed(dir: string, worktree: string, verdicts: Verdicts): Promise<Finding[]> {
  const out: Finding[] = [];
  const ids = new Map<string, number>();
  const count = (id: string) => ids.set(id, (ids.get(id) ?? 0) + 1);
  let rejected = 0;
  let good = 0;
  const collect = pacedCollector(FILES_PER_COLLECTION);
  const visit = (entry: ClosedEntry) => {
    collect();
    if (!entry.ok) {
      rejected++;
      return void out.push(finding("FAIL", "sessions", entry.path, entry.reason, LIST));
    }
    const r = entry.record;
    good++;
    count(ownCopy(String(r.meta.session_id)));
    const absolute = absoluteKey(r.meta);
    if (absolute === undefined)
      return verdicts.mark(join(worktree, r.path), statKey(entry.stats), String(r.meta.session_id));
    const message = `${absolute} holds an absolute path; shared records name none`;
    out.push(finding("FAIL", "sessions", r.path, message, `majordomus session show ${r.meta.session_id}`));
  };
  await eachClosedIn(dir, worktree, visit, (path) => {
    const was = verdicts.good(path);
    if (was?.id === undefined) return false;
    good++;
    count(was.id);
    return true;
  });
  for (const [id, n] of ids)
    if (n > 1) out.push(finding("FAIL", "sessions", id, `${n} closed records for one episode`, LIST));
  const all = `${good} closed record(s), session/v1, no conversation keys`;
  if (rejected === 0) out.push(finding("OK", "sessions", "repo/sessions", all, LIST));
  return out;
}
