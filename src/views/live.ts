/**
 * What a session is told of others live beside it: in its briefing when it opens, and at its next prompt when it was
 * already at work. Pure.
 */
import { LIVE_KEPT, type Live, type Stopped } from "../facts/live.ts";
import { ago } from "../records/labels.ts";
import type { Notice } from "../session/notices.ts";
import { field, fields } from "../lib/quote.ts";

const NOTICES_TOLD = 5;

const TOUCHED_SHOWN = 5;

const named = (paths: readonly string[], shown = TOUCHED_SHOWN) =>
  paths.length > shown ? `${fields(paths.slice(0, shown))} and ${paths.length - shown} more` : fields(paths);

const TASK_CHARS = 200;

function sessionLine(l: Live, at: Date): string {
  const where = l.here ? "" : ` in the worktree ${field(l.worktree)}, whose task overlaps yours,`;
  const task = l.task
    ? `task ${field(l.task.id)} (${field(l.task.task, TASK_CHARS)}; scope ${field(l.task.scope.join(", "), TASK_CHARS)})`
    : "no task";
  const touched = l.touched
    ? l.touched.length > 0
      ? `its newest record names as changed: ${named(l.touched)}`
      : "its newest record names no changed file"
    : "it has written no record yet";
  return (
    `- ${field(l.provider)} session ${field(l.provider_session)}${where} (episode ${field(l.session_id)}): ` +
    `opened ${ago(at, l.opened_at)}, last heard from ${ago(at, l.last_seen)}; ${task}; ${touched}.`
  );
}

export function liveLines(live: readonly Live[], at: Date, changedNow: readonly string[]): string[] {
  if (live.length === 0) return [];
  const here = live.filter((l) => l.here);
  return [
    "",
    `LIVE: ${live.length} other session(s) at work beside this one; each is told of this one ` +
      `at its next prompt. Coordinate through the files and the records, and do not undo their changes:`,
    ...live.map((l) => sessionLine(l, at)),
    ...(live.length >= LIVE_KEPT
      ? [
          `(The ${LIVE_KEPT} heard from most recently are named; \`majordomus session status\` ` +
            `lists every open episode.)`,
        ]
      : []),
    ...(here.length > 0 && changedNow.length > 0
      ? [
          `The working tree you share has ${changedNow.length} changed path(s) now, and git cannot ` +
            `say which session changed which: ${named(changedNow)}.`,
        ]
      : []),
    "A handover one of them writes is its own account of its own work, not a previous session's.",
  ];
}

export function liveCount(live: readonly Live[]): string[] {
  if (live.length === 0) return [];
  return [
    "",
    `LIVE: ${live.length} other session(s) at work beside this one ` +
      `(${fields(live.map((l) => l.provider))}): coordinate, and do not undo their changes; ` +
      `\`majordomus session status\` lists them.`,
  ];
}

export function noticeLines(notices: readonly Notice[], at: Date, task?: { id: string; task: string }): string[] {
  if (notices.length === 0) return [];
  const told = notices.slice(0, NOTICES_TOLD);
  const lines = [
    "## majordomus — another session opened beside this one",
    "",
    ...told.map((n) => {
      const where = n.here ? "in this checkout" : `in the worktree ${field(n.worktree)}, whose task overlaps yours`;
      const itsTask = n.task_id
        ? task && task.id === n.task_id
          ? `on task ${field(n.task_id)} (${field(task.task, TASK_CHARS)})`
          : `on task ${field(n.task_id)}`
        : "with no task";
      return `- A ${field(n.provider)} session (episode ${field(n.session_id)}) opened ${where} ${ago(at, n.opened_at)}, ${itsTask}.`;
    }),
    ...(notices.length > told.length
      ? [`- … and ${notices.length - told.length} more: \`majordomus session status\``]
      : []),
    "",
    "You share the working tree with it: coordinate through the files and the records, and do " +
      "not undo its changes. A handover it writes is its own account, not yours. (Told once.)",
  ];
  return lines;
}

/** A session stopped at its usage limit: when, why, and where its account then is. */
export const stoppedText = (s: Pick<Stopped, "stopped_at" | "error" | "checkpoint">, at: Date) =>
  `stopped at its usage limit ${ago(at, s.stopped_at)} (${field(s.error)}); its account then: ` +
  `${s.checkpoint ? `the checkpoint ${field(s.checkpoint)} (\`majordomus checkpoint --show\`)` : "the records below"}, ` +
  `and its handover if it wrote one. Carry the work on from there.`;

export const stoppedLines = (stopped: readonly Stopped[], at: Date): string[] => [
  "",
  ...stopped.map(
    (s) =>
      `STOPPED: ${field(s.provider)} session ${field(s.provider_session)} (episode ${field(s.session_id)}, ` +
      `${s.ended ? "ended since" : "still open, not at work"}): it ${stoppedText(s, at)}`,
  ),
];

export const stoppedCount = (stopped: readonly Stopped[]): string[] => [
  "",
  `STOPPED: ${stopped.length} session(s) stopped at a usage limit (${fields(stopped.map((s) => s.provider))}); ` +
    `\`majordomus checkpoint --show\` shows the newest account.`,
];
