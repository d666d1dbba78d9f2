/**
 * opencode keeps its sessions in SQLite (`$XDG_DATA_HOME/opencode/opencode.db`, WAL): read-only, one session's
 * messages and parts as JSON lines for transcript/actions.ts, from a regular file of opencode's own data folder reached
 * through no link (lib/safe-read.ts openUnder), at most ROWS rows and no part over PART_MAX.
 */
import { closeSync } from "node:fs";
import { openUnder } from "../lib/safe-read.ts";
import { openStoreReadOnly } from "../lib/runtime.ts";
import { transcriptRoot } from "./roots.ts";

const ROWS = 50_000;
const PART_MAX = 1024 * 1024;
const STORE_MAX = 4 * 1024 * 1024 * 1024;

export async function opencodeLines(db: string, session: string): Promise<{ text: string; cut: boolean } | undefined> {
  const root = transcriptRoot("opencode");
  if (root === undefined) return undefined;
  try {
    const opened = openUnder(db, root);
    if (!opened) return undefined;
    closeSync(opened.fd);
    if (opened.stats.size > STORE_MAX) return undefined;
  } catch {
    return undefined;
  }
  let store: Awaited<ReturnType<typeof openStoreReadOnly>> | undefined;
  try {
    store = await openStoreReadOnly(db);
    const rows = store.all(
      `select m.id as id, json_extract(m.data, '$.role') as role, ` +
        `case when length(p.data) > ${PART_MAX} then null else p.data end as part ` +
        `from part p join message m on m.id = p.message_id where p.session_id = ? ` +
        `order by p.time_created, p.id limit ${ROWS + 1}`,
      session,
    );
    // A part too large to read is left as text the reader counts as unseen.
    const lines = rows
      .slice(0, ROWS)
      .map((r) =>
        typeof r.part === "string"
          ? `{"id":${JSON.stringify(r.id)},"role":${JSON.stringify(r.role)},"part":${r.part}}`
          : "{",
      );
    return { text: lines.join("\n"), cut: rows.length > ROWS };
  } catch {
    return undefined;
  } finally {
    store?.close();
  }
}
