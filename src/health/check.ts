/**
 * `majordomus check`: the active task against git, and what refuses acceptance. Read-only. Used by
 * the briefing's last line and by the handover mod's request ("read the live state first").
 */
import { inScope } from "../lib/scope.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { describeMalformed, readQuestions } from "../questions/store.ts";
import { DIVERGENCE_MEANING, ago, divergence } from "../records/labels.ts";
import { filesSince, snapshot } from "../repo/status.ts";
import { now } from "../lib/clock.ts";
import { activeTask } from "../task/record.ts";
import type { Finding } from "./findings.ts";

/** Paths majordomus and the clients write themselves: never "outside the task's scope". */
const LAYER_PATHS = [".ai/", ".claude/", ".gitignore"];

export async function check(ws: Workspace): Promise<Finding[]> {
  const out: Finding[] = [];
  const read = await activeTask(ws.layer);
  if (read.problem)
    out.push({
      level: "FAIL",
      category: "task",
      subject: "record",
      message: read.problem,
      reproduce: "majordomus check",
    });
  const task = read.active;
  if (!task) {
    out.push({
      level: "INFO",
      category: "task",
      subject: "none",
      message: "no active task; work outside a task is allowed, and nothing below is held to a scope",
      reproduce: 'majordomus start "<task>" --scope <paths>',
    });
  } else {
    const label = await divergence({ head: task.head, branch: task.branch }, ws.position, "commits");
    const ok = label === "exact" || label === "advanced";
    out.push({
      level: ok ? "OK" : "FAIL",
      category: "task",
      subject: task.id,
      message: `task record is ${label} (${DIVERGENCE_MEANING[label]}); recorded on ${task.branch} at ${task.head.slice(0, 7)}`,
      reproduce: "majordomus context",
    });
    const files = await filesSince(ws.position, task.head, await snapshot(ws.position, ws.own), ws.own);
    const outside = files.filter(
      (f) => !LAYER_PATHS.some((p) => f === p || f.startsWith(p)) && !inScope(task.scope, f),
    );
    out.push(
      outside.length === 0
        ? {
            level: "OK",
            category: "scope",
            subject: task.id,
            message: `${files.length} changed file(s), all inside ${task.scope.join(", ")}`,
            reproduce: "git status; git diff --stat",
          }
        : {
            level: "FAIL",
            category: "scope",
            subject: task.id,
            message: `${outside.length} changed file(s) outside ${task.scope.join(", ")}: ${outside.slice(0, 5).join(", ")}${outside.length > 5 ? ", …" : ""}`,
            reproduce: "git status; git diff --stat",
          },
    );
    out.push({
      level: "INFO",
      category: "checkpoint",
      subject: task.id,
      message: `last checkpoint or handover ${ago(now(), task.checkpoint_at)}`,
      reproduce: "majordomus checkpoint --show",
    });
  }
  const questions = readQuestions(ws.layer);
  // Numbered as `question list` numbers them, so `question resolve <n>` takes the number shown.
  questions.open.forEach((q, i) =>
    out.push({
      level: "FAIL",
      category: "blockers",
      subject: `question ${i + 1}`,
      message: `open: ${q.text} (refuses finish --outcome completed)`,
      reproduce: `majordomus question resolve ${i + 1} --answer "…"`,
    }),
  );
  for (const m of describeMalformed(questions))
    out.push({
      level: "FAIL",
      category: "blockers",
      subject: "open-questions.md",
      message: m,
      reproduce: "majordomus question list",
    });
  if (questions.open.length === 0 && questions.malformed.length === 0)
    out.push({
      level: "OK",
      category: "blockers",
      subject: "questions",
      message: "none open",
      reproduce: "majordomus question list",
    });
  return out;
}
