/**
 * The two derived records, composed without a model: `checkpoint --derive` (where the work stands, short enough to
 * quote whole) and `handover --derive`, whose sections come from a table (the policy's required ones first). Every
 * sentence says what it is derived from.
 */
import { Failure } from "../lib/failure.ts";
import type { Facts, RecordNeed } from "../facts/facts.ts";
import { requireNumber } from "../policy/index.ts";
import { ago } from "../records/labels.ts";
import { capped } from "./common.ts";

const COMMITS_SHOWN = 8;
const FILES_NAMED = 3;

export const CHECKPOINT_TRAILER =
  "Derived by `majordomus checkpoint --derive` from git, the task record and the open questions; no model wrote it.";
export const HANDOVER_TRAILER =
  "Derived by `majordomus handover --derive` from the task record, the ledger, git and the " +
  "open questions. It asserts nothing else, and no model wrote it.";

export const CHECKPOINT_NEEDS = ["since_task"] as const satisfies readonly RecordNeed[];
export const HANDOVER_NEEDS = [
  "since_task",
  "decisions",
  "entries",
  "checkpoint",
  "handover",
] as const satisfies readonly RecordNeed[];

const since = (f: Facts) => (f.task ? "since the task started" : "in the working tree (no active task marks a start)");

export function deriveCheckpoint(f: Facts): string {
  const maxLines = requireNumber(f.policy, "checkpoint.max_body_lines");
  const maxItems = requireNumber(f.policy, "context.max_list_items");
  const p = f.position;
  const head = [
    `At ${p.head.slice(0, 7)} on ${p.branch}, working ` +
      `tree ${f.snapshot.workingTree}; ${f.files.length} file(s) changed ${since(f)}.`,
  ];
  const commits = f.sinceTask?.commits ?? [];
  const commitLines =
    commits.length > 0
      ? ["", `Commits since the task started (${commits.length}):`, ...capped(commits, COMMITS_SHOWN, "commit(s)")]
      : [];
  const blockers =
    f.questions.open.length > 0
      ? ["", `${f.questions.open.length} open question(s) block acceptance; see \`majordomus question list\`.`]
      : [];
  const trailer = ["", CHECKPOINT_TRAILER];
  // The file list gives way first, so the body always fits the policy's cap.
  for (let shown = Math.min(maxItems, f.files.length); shown >= 0; shown--) {
    const files = f.files.length > 0 ? capped(f.files, shown, "file(s)") : [];
    const body = [...head, ...files, ...commitLines, ...blockers, ...trailer];
    if (body.length <= maxLines) return body.join("\n");
  }
  return [...head, ...trailer].slice(0, maxLines).join("\n");
}

type Writer = (f: Facts) => string[];

function counts(f: Facts): string {
  if (!f.task) return "No task is active, so no ledger lines are attributed to one.";
  const n = (event: string) => f.entries.filter((e) => e.event === event).length;
  return (
    `Since the task started the ledger ` +
    `holds ${n("task.checkpoint")} checkpoint(s), ${n("decision.recorded")} decision(s), ${n("question.opened")} question(s) ` +
    `opened ` +
    `and ${n("task.handed_over")} handover(s).`
  );
}

const objective: Writer = (f) => {
  if (!f.task)
    return [
      "No task was active: this work happened outside a task.",
      "",
      'Start one with `majordomus start "<task>" --scope <paths>` to give the next session an objective.',
    ];
  return [
    f.task.task,
    "",
    `Task ${f.task.id}, profile ${f.task.profile}, owner ${f.task.owner}. Declared scope: ${f.task.scope.join(", ") || "(none)"}.`,
  ];
};

const quotedCheckpoint = (f: Facts) => {
  const c = f.checkpoint.view;
  return c && !c.history ? c : undefined;
};

const currentState: Writer = (f) => {
  const p = f.position;
  const max = requireNumber(f.policy, "context.max_list_items");
  const lines = [`On ${p.branch} at ${p.head.slice(0, 7)}, working tree ${f.snapshot.workingTree}.`];
  if (f.sinceTask && f.sinceTask.start !== p.head)
    lines.push(
      `The task started at ${f.sinceTask.start.slice(0, 7)}; git is now at ${p.head.slice(0, 7)} (${f.sinceTask.label}).`,
    );
  lines.push("");
  if (f.files.length === 0)
    lines.push(f.task ? "No file changed since the task started." : "The working tree has no changes.");
  else
    lines.push(
      `${f.files.length} file(s) changed ${f.task ? "since the task started" : "in the working tree"}:`,
      ...capped(f.files, max, "file(s)"),
    );
  lines.push("", counts(f));
  const c = quotedCheckpoint(f);
  if (c) {
    const quoted = c.body.split("\n").filter((l) => l.trim() !== "");
    lines.push(
      "",
      `Newest checkpoint, written ${ago(f.at, c.created_at)} (${c.path}):`,
      ...quoted.slice(0, requireNumber(f.policy, "checkpoint.max_body_lines")).map((l) => `> ${l}`),
    );
  }
  return lines;
};

function someFiles(files: readonly string[]): string {
  const named = files.slice(0, FILES_NAMED).join(", ");
  return files.length > FILES_NAMED ? `${named} and ${files.length - FILES_NAMED} more` : named;
}

/** The task to continue and what its changed files say, or what to do without a task. */
function whereWorkStands(f: Facts): string[] {
  if (f.task) {
    const head = f.task.head.slice(0, 7);
    return [
      `Continue task ${f.task.id}: ${f.task.task}`,
      f.files.length > 0
        ? `Its work so far is in ${f.files.length} changed file(s) (${someFiles(f.files)}); \`git ` +
          `diff ${head}\` shows them. Check them against the objective and carry on where they stop.`
        : `No file has changed since it started at ${head}: begin from the ` +
          `objective and the declared scope (${f.task.scope.join(", ")}).`,
    ];
  }
  if (f.files.length > 0)
    return [
      `No task is active. The working tree holds ${f.files.length} uncommitted change(s) ` +
        `(${someFiles(f.files)}): read them with \`git status\` and \`git diff\`, then finish or ` +
        `discard them, or start a task that covers them.`,
    ];
  return [
    "No task is active and the working tree has no changes: nothing was left in progress. " +
      "Decide the next step from the repository, or start a task with `majordomus start`.",
  ];
}

const nextAction: Writer = (f) => {
  const max = requireNumber(f.policy, "context.max_list_items");
  const lines: string[] = [];
  // Only an authored handover of this same line of work is the one to follow.
  const h = f.handover.view;
  const closing =
    !f.task && f.closedBy !== undefined && h?.task_id === f.closedBy.task_id && h.created_at === f.closedBy.created_at;
  const authored =
    h && h.how === "authored" && !h.history && (h.task_id === (f.task?.id ?? "none") || closing) ? h : undefined;
  if (authored) {
    lines.push(
      `The worker's own handover ${authored.path} (written ${ago(f.at, authored.created_at)}) ` +
        `says what to do next; follow its Next Action. This record adds only what changed since, ` +
        `from git and the ledger (Current State above).`,
      "",
    );
  }
  if (f.questions.open.length > 0) {
    lines.push(
      `Answer the open question(s) first; each refuses \`majordomus finish --outcome completed\`:`,
      ...capped(
        f.questions.open.map((q) => q.text),
        max,
        "question(s)",
      ),
      "",
    );
  }
  lines.push(...whereWorkStands(f));
  const c = quotedCheckpoint(f);
  if (c)
    lines.push(
      `The newest checkpoint (${c.path}) is quoted under this record's Current State; \`majordomus checkpoint --show\` prints it.`,
    );
  else if (f.task && f.entries.filter((e) => e.event === "task.checkpoint").length === 0)
    lines.push(
      "",
      "No checkpoint was recorded during this task: git is the only evidence of progress, so " +
        "read the diff before trusting any summary.",
    );
  return lines;
};

const decisions: Writer = (f) => {
  const recent = [...f.decisions].reverse().slice(0, requireNumber(f.policy, "context.recent_decisions"));
  return recent.length > 0
    ? recent.map((d) => `- ${d.date} ${d.title} (task ${d.task}): ${d.why}`)
    : ["None recorded in this checkout."];
};

const openQuestions: Writer = (f) => {
  if (f.questions.open.length === 0) return ["None; nothing blocks acceptance in this checkout."];
  return capped(
    f.questions.open.map((q) => `${q.taskId} — ${q.text} (${q.opened})`),
    requireNumber(f.policy, "context.max_list_items"),
    "question(s)",
  );
};

const verification: Writer = (f) => {
  const finished = f.entries.find((e) => e.event === "task.finished" && e.task_id === f.task?.id);
  if (finished) return [`The task was finished as ${String(finished.outcome)}.`];
  return ["This record asserts no test result. Run the project's tests before claiming anything works."];
};

export const SECTION_WRITERS: Record<string, Writer> = {
  Objective: objective,
  "Current State": currentState,
  "Next Action": nextAction,
  Decisions: decisions,
  "Open Questions": openQuestions,
  Verification: verification,
};

const OPTIONAL = ["Decisions", "Open Questions", "Verification"];

export const DERIVABLE_SECTIONS: readonly string[] = Object.keys(SECTION_WRITERS);

export function deriveHandover(f: Facts, required: readonly string[]): string {
  // The names come from a tracked policy: only the table's own rows are writers (not `toString`).
  const missing = required.filter((name) => !Object.hasOwn(SECTION_WRITERS, name));
  if (missing.length > 0) {
    throw new Failure(
      "contract",
      `the policy requires section(s) no derivation can write: ${missing.join(", ")}`,
      `write the handover by hand, or limit handover.required_sections to ${Object.keys(SECTION_WRITERS).join(", ")}`,
    );
  }
  const order = [...required, ...OPTIONAL.filter((s) => !required.includes(s))];
  const out: string[] = [];
  for (const name of order) out.push(`# ${name}`, "", ...SECTION_WRITERS[name]!(f), "");
  out.push("---", "", HANDOVER_TRAILER);
  return out.join("\n");
}
