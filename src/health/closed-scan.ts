/**
 * doctor's check of the closed records: front matter only, against its schema, no conversation key, no absolute path,
 * one record per episode. Runs on either thread.
 */
import { join } from "node:path";
import { eachClosedIn } from "../session/closed.ts";
import type { Finding } from "./findings.ts";
import { statKey } from "./tree.ts";
import { FILES_PER_COLLECTION, ownCopy } from "./verdicts.ts";
import { pacedCollector } from "../lib/runtime.ts";
import type { Verdicts } from "./verdicts.ts";

export async function checkClosed(dir: string, worktree: string, verdicts: Verdicts): Promise<Finding[]> {
  const out: Finding[] = [];
  const ids = new Map<string, number>();
  const count = (id: string) => ids.set(id, (ids.get(id) ?? 0) + 1);
  let rejected = 0;
  let good = 0;
  const collect = pacedCollector(FILES_PER_COLLECTION);
  await eachClosedIn(
    dir,
    worktree,
    (entry) => {
      collect();
      if (!entry.ok) {
        rejected++;
        out.push({
          level: "FAIL",
          category: "sessions",
          subject: entry.path,
          message: entry.reason,
          reproduce: "majordomus session list --all",
        });
        return;
      }
      const r = entry.record;
      good++;
      count(ownCopy(String(r.meta.session_id)));
      const absolute = Object.entries(r.meta).find(([, v]) =>
        (Array.isArray(v) ? v : [v]).some((x) => typeof x === "string" && x.startsWith("/")),
      );
      if (absolute)
        out.push({
          level: "FAIL",
          category: "sessions",
          subject: r.path,
          message: `${absolute[0]} holds an absolute path; shared records name none`,
          reproduce: `majordomus session show ${r.meta.session_id}`,
        });
      else verdicts.mark(join(worktree, r.path), statKey(entry.stats), String(r.meta.session_id));
    },
    (path) => {
      const was = verdicts.good(path);
      if (was?.id === undefined) return false;
      good++;
      count(was.id);
      return true;
    },
  );
  for (const [id, n] of ids)
    if (n > 1)
      out.push({
        level: "FAIL",
        category: "sessions",
        subject: id,
        message: `${n} closed records for one episode`,
        reproduce: `majordomus session list --all`,
      });
  if (rejected === 0)
    out.push({
      level: "OK",
      category: "sessions",
      subject: "repo/sessions",
      message: `${good} closed record(s), session/v1, no conversation keys`,
      reproduce: "majordomus session list --all",
    });
  return out;
}
