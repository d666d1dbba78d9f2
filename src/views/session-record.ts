/**
 * The shared record of a closed episode: `.ai/repo/sessions/<closed>--<id>.md`, `session/v1`
 * front matter (a closed key set, no absolute paths) and a body composed from the policy's
 * `session.record_sections`. No model, no transcript: a pure view over the episode's window.
 */
import { field } from "../lib/quote.ts";
import { emitMap } from "../lib/yaml-emit.ts";
import type { Clean } from "../lib/redact.ts";
import type { EpisodeWindow } from "../facts/episode.ts";
import type { Policy } from "../policy/index.ts";
import type { Outcome } from "../session/schema.ts";
import { recordedPaths } from "../lib/changed-paths.ts";
import type { Uptake } from "../transcript/uptake.ts";

export type Closing = { closedAt: string; outcome: Outcome; reason?: string; uptake?: Uptake };

type Section = (w: EpisodeWindow, c: Closing) => string[];

/** Lines quoted from each checkpoint in Progress Notes: enough to recognise it, not to replace it. */
const QUOTED_LINES = 12;

/** One writer per record section name; a section with nothing to say says so and names its command. */
export const RECORD_SECTIONS: Record<string, Section> = {
  "What Happened": (w, c) => [
    `Episode ${w.episode.session_id}, opened ` +
      `by ${field(w.episode.opened_by)}${w.episode.provider !== "none" ? ` (${field(w.episode.provider)} session ${field(w.episode.provider_session)})` : ""} at ${w.episode.opened_at}, ` +
      `closed ${c.outcome} at ${c.closedAt}${c.reason ? ` (reason ${c.reason})` : ""}.`,
    `On ${field(w.episode.branch)}, ` +
      `from ${w.episode.start_head.slice(0, 7)} to ${w.endHead.slice(0, 7)}; ${COMMITS_SAID[w.commits[0] ?? ""]?.(w) ?? `${w.commits.length} commit(s)`}, ${w.files.length} file(s) ` +
      `changed.`,
    ...(w.tasks.length ? [`Task(s): ${w.tasks.join(", ")}.`] : ["No task was active."]),
  ],
  "Progress Notes": (w) =>
    w.checkpoints.length === 0
      ? ["No checkpoint was recorded in this episode (`majordomus checkpoint` records one)."]
      : w.checkpoints.flatMap((c) => [`- ${c}`, ...(w.quotes[c] ?? []).slice(0, QUOTED_LINES).map((l) => `  > ${l}`)]),
  Decisions: (w) =>
    w.decisions.length === 0
      ? ["None recorded in this episode (`majordomus decision` records one)."]
      : w.decisions.map((d) => `- ${d}`),
  "Open Questions": (w) =>
    w.questions.length === 0
      ? ["None opened in this episode (`majordomus question add` opens one)."]
      : w.questions.map((q) => `- ${q}`),
  Outcome: (w, c) => [
    `${c.outcome}${c.reason ? ` (client reason: ${c.reason})` : ""}.`,
    ...(c.uptake ? [uptakeLine(c.uptake)] : []),
    ...(w.handovers.length === 0
      ? ["No handover was written in this episode (`majordomus handover` writes one)."]
      : w.handovers.map((h) => `Continuation record: ${h}`)),
  ],
};

export function recordBody(w: EpisodeWindow, c: Closing, policy: Policy | undefined): string {
  const names = policy?.session?.record_sections;
  if (!names)
    return (
      `The policy declares no session.record_sections, so this record has no composed body; ` +
      `\`majordomus session show ${w.episode.session_id}\` shows its facts.`
    );
  const out: string[] = [];
  for (const name of names) {
    // The names come from the policy, a tracked file: only the table's own rows are writers (not `constructor`).
    const writer = Object.hasOwn(RECORD_SECTIONS, name) ? RECORD_SECTIONS[name] : undefined;
    out.push(
      `# ${name}`,
      "",
      ...(writer
        ? writer(w, c)
        : [
            `No majordomus writer fills "${name}"; close the episode with an authored summary on ` +
              `stdin to give it content.`,
          ]),
      "",
    );
  }
  return out.join("\n");
}

/** The uptake in one sentence: the figures the front matter holds, in words. */
export function uptakeLine(u: Uptake): string {
  const of = `${u.acted_on.length} of ${u.named.length} named`;
  const early =
    u.turn !== undefined
      ? `; first in turn ${u.turn}, after ${u.tool_calls_before} tool call(s) and ${u.tokens_before} output token(s)`
      : "";
  const rereads = u.rereads !== undefined ? `; ${u.rereads} read(s) of cited files before the first edit` : "";
  return (
    `Uptake of the Next Action handed in ${u.handed}: ${u.state.replace("_", " ")}` +
    (u.cause ? ` (${u.cause}).` : ` (${of}${early}${rereads}).`)
  );
}

/** What the record says in place of a commit count when git could not give one. */
const COMMITS_SAID: Record<string, (w: EpisodeWindow) => string> = {
  diverged: () => "the start commit is no longer an ancestor (history was rewritten)",
  unknown: () =>
    "commits and changed files unknown: git did not answer within the end hook's budget (the " +
    "client's end_budget_ms), so this record was published without them",
};

/** The front matter's `uptake`, its state first; absent figures are left out. */
const UPTAKE_KEYS = [
  "state",
  "handed",
  "named",
  "acted_on",
  "turn",
  "tool_calls_before",
  "tokens_before",
  "rereads",
  "cause",
] as const;
const uptakeMap = (u: Uptake) =>
  Object.fromEntries(UPTAKE_KEYS.flatMap((k) => (u[k] === undefined ? [] : [[k, u[k]]]))) as Record<
    string,
    string | number | string[]
  >;

export function renderRecord(w: EpisodeWindow, c: Closing, body: Clean): string {
  const front = emitMap([
    ["schema", "session/v1"],
    ["session_id", w.episode.session_id],
    ["provider", w.episode.provider],
    ["provider_session", w.episode.provider_session],
    ["opened_by", w.episode.opened_by],
    ["worker", w.episode.worker],
    ["opened_at", w.episode.opened_at],
    ["closed_at", c.closedAt],
    ["outcome", c.outcome],
    ["branch", w.episode.branch],
    ["start_head", w.episode.start_head],
    ["end_head", w.endHead],
    ["commits", w.commits],
    ["changed_files", recordedPaths(w.files)],
    ["tasks", w.tasks],
    ["checkpoints", w.checkpoints],
    ["handovers", w.handovers],
    ["decisions", w.decisions],
    ["questions", w.questions],
    ...(c.uptake ? [["uptake", uptakeMap(c.uptake)] as const] : []),
  ]);
  return `---\n${front}---\n\n${body.replace(/\s+$/, "")}\n`;
}
