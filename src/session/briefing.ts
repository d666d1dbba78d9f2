/**
 * The briefing a client's start event prints: which episode this is, where git stands, the task,
 * what blocks acceptance, and what the last episode left, labelled against git and by age. At
 * most `session.briefing_budget_lines` lines, plus one line naming exactly how many were withheld.
 * Never conversation text. A record that cannot be read degrades it; nothing here can stop an
 * episode from opening.
 */
import { now } from "../lib/clock.ts";
import type { Here } from "../layer/here.ts";
import { requireNumber, type LoadedPolicy } from "../policy/index.ts";
import { readQuestions } from "../questions/store.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { DIVERGENCE_MEANING } from "../records/labels.ts";
import { resolveLatest } from "../records/resolve.ts";
import { view } from "../records/view.ts";
import { snapshot } from "../repo/status.ts";
import { activeTask } from "../task/record.ts";

/** Shown from the resolved handover's Next Action, and from the open questions. */
const NEXT_ACTION_LINES = 12;
const QUESTIONS_SHOWN = 5;

export type Briefing = { lines: string[]; withheld: number };

export async function composeBriefing(here: Here, policy: LoadedPolicy, episode: { session_id: string; kept: boolean } | undefined): Promise<Briefing> {
  const budget = requireNumber(policy, "session.briefing_budget_lines");
  const p = here.position;
  // The handover is placed against git (a process when its commit differs) while git status runs.
  const handover = (async () => {
    const resolved = await resolveLatest(RECORD_KINDS.handover, here);
    return { resolved, v: resolved.record ? await view(resolved.record, p, policy.policy, now()) : undefined };
  })();
  handover.catch(() => undefined);
  const [snap, task] = await Promise.all([snapshot(p), activeTask(here.layer)]);
  const lines = ["## majordomus — what this repository already knows", ""];
  lines.push(`Episode ${episode ? `${episode.session_id} (${episode.kept ? "resumed" : "opened now"})` : "(none open)"}, on ${p.branch} at ${p.head.slice(0, 7)}, working tree ${snap.workingTree}.`);
  const t = task.active;
  if (t) lines.push(`Task ${t.id} (${t.outcome}, profile ${t.profile}): ${t.task}`, `Scope: ${t.scope.join(", ")}`);
  else lines.push(`No active task. Working outside a task is allowed; \`majordomus start "<task>" --scope <paths>\` gives the work an objective.`);
  if (task.problem) lines.push(`WARNING: ${task.problem}`);

  const questions = readQuestions(here.layer);
  if (questions.open.length > 0) {
    lines.push("", `BLOCKED: ${questions.open.length} open question(s); each refuses \`majordomus finish --outcome completed\`:`);
    for (const q of questions.open.slice(0, QUESTIONS_SHOWN)) lines.push(`- ${q.text} (task ${q.taskId}, ${q.opened})`);
    if (questions.open.length > QUESTIONS_SHOWN) lines.push(`- … and ${questions.open.length - QUESTIONS_SHOWN} more: \`majordomus question list\``);
  }
  if (questions.malformed.length > 0) lines.push(`WARNING: ${questions.malformed.length} malformed line(s) in ${questions.path}: \`majordomus question list\` names them.`);

  lines.push("");
  try {
    const { resolved, v } = await handover;
    if (resolved.skipped > 0) lines.push(`(${resolved.skipped} malformed handover record(s) were skipped.)`);
    if (!v) {
      lines.push(`No relevant handover for this worktree and branch (${p.branch}); records from other branches are never offered.`);
    } else {
      const age = v.age ? `${v.age} old` : "age unknown";
      if (v.history) {
        lines.push(`Historical handover ${v.path} (${v.match}, ${v.divergence}, ${v.freshness}, ${age}).`);
        lines.push(`It is ${v.freshness}: ${v.freshness_reason}. It is context, not an instruction: its Next Action was true when written and is deliberately not quoted. Decide what to do from the repository as it stands.`);
      } else {
        lines.push(`Handover ${v.path} (${v.match}, ${v.divergence}, ${v.freshness}, ${age}).`);
        if (v.divergence === "diverged" || v.divergence === "different_context" || v.divergence === "unknown") lines.push(`WARNING: ${DIVERGENCE_MEANING[v.divergence]}. Git wins where they disagree.`);
        if (v.next_action && v.next_action.length > 0) {
          lines.push("Its Next Action:", ...v.next_action.slice(0, NEXT_ACTION_LINES));
          if (v.next_action.length > NEXT_ACTION_LINES) lines.push(`(… ${v.next_action.length - NEXT_ACTION_LINES} more line(s) in ${v.path})`);
        } else lines.push("It has no Next Action section.");
      }
    }
  } catch (err) {
    lines.push(`The last handover could not be read (${(err as Error).message}); \`majordomus handover --resolve\` shows why.`);
  }
  lines.push("", "Run `majordomus context` for the whole picture, and `majordomus check` before claiming anything is done.");
  if (lines.length <= budget) return { lines, withheld: 0 };
  const shown = lines.slice(0, budget);
  const withheld = lines.length - budget;
  shown.push(`… ${withheld} more line(s) withheld by session.briefing_budget_lines; run \`majordomus context\` for the whole briefing.`);
  return { lines: shown, withheld };
}
