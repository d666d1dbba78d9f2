/** `checkpoint --derive`: where the work stands, in a body short enough to quote whole. */
import { requireNumber } from "../policy/index.ts";
import { capped, type Gathered } from "./gather.ts";

/** How many commits a derived checkpoint lists (a presentation choice: the rest are counted). */
const COMMITS_SHOWN = 8;

export const CHECKPOINT_TRAILER = "Derived by `majordomus checkpoint --derive` from git, the task record and the open questions; no model wrote it.";

export function deriveCheckpoint(g: Gathered): string {
  const maxLines = requireNumber(g.policy, "checkpoint.max_body_lines");
  const maxItems = requireNumber(g.policy, "context.max_list_items");
  const p = g.here.position;
  const since = g.task ? "since the task started" : "in the working tree (no active task marks a start)";
  const head = [`At ${p.head.slice(0, 7)} on ${p.branch}, working tree ${g.snapshot.workingTree}; ${g.files.length} file(s) changed ${since}.`];
  const commits = g.commits.length > 0 ? ["", `Commits since the task started (${g.commits.length}):`, ...capped(g.commits, COMMITS_SHOWN, "commit(s)")] : [];
  const blockers = g.questions.open.length > 0 ? ["", `${g.questions.open.length} open question(s) block acceptance; see \`majordomus question list\`.`] : [];
  const trailer = ["", CHECKPOINT_TRAILER];
  // The file list gives way first, so the body always fits the policy's cap.
  for (let shown = Math.min(maxItems, g.files.length); shown >= 0; shown--) {
    const files = g.files.length > 0 ? capped(g.files, shown, "file(s)") : [];
    const body = [...head, ...files, ...commits, ...blockers, ...trailer];
    if (body.length <= maxLines) return body.join("\n");
  }
  return [...head, ...trailer].slice(0, maxLines).join("\n");
}
