/**
 * `handover --derive`: a continuation record composed from the task record, the ledger, git, the
 * open questions and the newest checkpoint. The policy's required sections come first, in policy
 * order, each from its writer in SECTION_WRITERS; then the optional sections not yet written.
 */
import { Failure } from "../lib/failure.ts";
import { readDecisions } from "../decisions/store.ts";
import { requireNumber } from "../policy/index.ts";
import { ago } from "../records/labels.ts";
import { capped, type Gathered } from "./gather.ts";

type Writer = (g: Gathered) => string[];

function relative(g: Gathered, path: string): string {
  return path.startsWith(`${g.here.position.worktree}/`) ? path.slice(g.here.position.worktree.length + 1) : path;
}

function counts(g: Gathered): string {
  if (!g.task) return "No task is active, so no ledger lines are attributed to one.";
  const n = (event: string) => g.entries.filter((e) => e.event === event).length;
  return `Since the task started the ledger holds ${n("task.checkpoint")} checkpoint(s), ${n("decision.recorded")} decision(s), ${n("question.opened")} question(s) opened and ${n("task.handed_over")} handover(s).`;
}

const objective: Writer = (g) => {
  if (!g.task) return ["No task was active: this work happened outside a task.", "", "Start one with `majordomus start \"<task>\" --scope <paths>` to give the next session an objective."];
  return [g.task.task, "", `Task ${g.task.id}, profile ${g.task.profile}, owner ${g.task.owner}. Declared scope: ${g.task.scope.join(", ") || "(none)"}.`];
};

const currentState: Writer = (g) => {
  const p = g.here.position;
  const max = requireNumber(g.policy, "context.max_list_items");
  const lines = [`On ${p.branch} at ${p.head.slice(0, 7)}, working tree ${g.snapshot.workingTree}.`];
  if (g.task && g.start !== p.head) lines.push(`The task started at ${g.start!.slice(0, 7)}; git is now at ${p.head.slice(0, 7)} (${g.startLabel}).`);
  lines.push("");
  if (g.files.length === 0) lines.push(g.task ? "No file changed since the task started." : "The working tree has no changes.");
  else lines.push(`${g.files.length} file(s) changed${g.task ? " since the task started" : " in the working tree"}:`, ...capped(g.files, max, "file(s)"));
  lines.push("", counts(g));
  if (g.checkpoint) {
    const quoted = g.checkpoint.body.split("\n").filter((l) => l.trim() !== "");
    lines.push("", `Newest checkpoint, written ${ago(g.at, g.checkpoint.meta.created_at)} (${relative(g, g.checkpoint.path)}):`, ...quoted.slice(0, requireNumber(g.policy, "checkpoint.max_body_lines")).map((l) => `> ${l}`));
  }
  return lines;
};

const nextAction: Writer = (g) => {
  const max = requireNumber(g.policy, "context.max_list_items");
  const lines: string[] = [];
  if (g.questions.open.length > 0) {
    lines.push(`Answer the open questions first; each refuses \`majordomus finish --outcome completed\`:`, ...capped(g.questions.open.map((q) => q.text), max, "question(s)"), "");
  }
  lines.push("Run `majordomus context` for the whole picture, then read the changes above against the objective and continue where they stop.");
  const checkpoints = g.entries.filter((e) => e.event === "task.checkpoint").length;
  if (g.task && checkpoints === 0) lines.push("", "No checkpoint was recorded during this task: git is the only evidence of progress, so read the diff before trusting any summary.");
  return lines;
};

const decisions: Writer = (g) => {
  const recent = readDecisions(g.here.layer).reverse().slice(0, requireNumber(g.policy, "context.recent_decisions"));
  return recent.length > 0 ? recent.map((d) => `- ${d.date} ${d.title} (task ${d.task}): ${d.why}`) : ["None recorded in this checkout."];
};

const openQuestions: Writer = (g) => {
  if (g.questions.open.length === 0) return ["None; nothing blocks acceptance in this checkout."];
  return capped(
    g.questions.open.map((q) => `${q.taskId} — ${q.text} (${q.opened})`),
    requireNumber(g.policy, "context.max_list_items"),
    "question(s)",
  );
};

const verification: Writer = (g) => {
  const finished = g.entries.find((e) => e.event === "task.finished" && e.task_id === g.task?.id);
  if (finished) return [`The task was finished as ${String(finished.outcome)}.`];
  return ["This record asserts no test result. Run the project's tests before claiming anything works."];
};

/** One writer per section name; a required section with no writer here cannot be derived. */
export const SECTION_WRITERS: Record<string, Writer> = {
  Objective: objective,
  "Current State": currentState,
  "Next Action": nextAction,
  Decisions: decisions,
  "Open Questions": openQuestions,
  Verification: verification,
};

const OPTIONAL = ["Decisions", "Open Questions", "Verification"];

export const HANDOVER_TRAILER = "Derived by `majordomus handover --derive` from the task record, the ledger, git and the open questions. It asserts nothing else, and no model wrote it.";

export function deriveHandover(g: Gathered, required: readonly string[]): string {
  const missing = required.filter((name) => !SECTION_WRITERS[name]);
  if (missing.length > 0) {
    throw new Failure("contract", `the policy requires section(s) no derivation can write: ${missing.join(", ")}`, `write the handover by hand, or limit handover.required_sections to ${Object.keys(SECTION_WRITERS).join(", ")}`);
  }
  const order = [...required, ...OPTIONAL.filter((s) => !required.includes(s))];
  const out: string[] = [];
  for (const name of order) out.push(`# ${name}`, "", ...SECTION_WRITERS[name]!(g), "");
  out.push("---", "", HANDOVER_TRAILER);
  return out.join("\n");
}
