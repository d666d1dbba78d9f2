/**
 * The shared record of a closed episode: `.ai/repo/sessions/<closed>--<id>.md`, `session/v1`
 * front matter (a closed key set, no absolute paths) and a body composed from the policy's
 * `session.record_sections`. No model, no transcript: only what the episode's ledger lines and
 * git say.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { emitMap } from "../lib/yaml-emit.ts";
import type { Here } from "../layer/here.ts";
import type { Entry } from "../ledger/line.ts";
import { newestFirst } from "../ledger/store.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { commitsSince, filesSince, isAncestor, snapshot } from "../repo/status.ts";
import type { OpenEpisode } from "./store.ts";

export const RECORD_KEYS = [
  "schema",
  "session_id",
  "provider",
  "provider_session",
  "opened_by",
  "worker",
  "opened_at",
  "closed_at",
  "outcome",
  "branch",
  "start_head",
  "end_head",
  "commits",
  "changed_files",
  "tasks",
  "checkpoints",
  "handovers",
  "decisions",
  "questions",
] as const;

/** Names a conversation would arrive under; a document carrying one is a blocking failure. */
export const TRANSCRIPT_KEYS = ["messages", "completion", "response", "transcript", "reply", "assistant"] as const;

export type Outcome = "closed" | "interrupted";

/** This episode's own ledger lines, oldest first: back to its `session.started`, never by time. */
export function episodeEntries(here: Here, sessionId: string): Entry[] {
  const out: Entry[] = [];
  for (const parsed of newestFirst(here.ledger.path)) {
    if (!parsed.ok) continue;
    if (parsed.entry.session === sessionId) out.push(parsed.entry);
    if (parsed.entry.event === "session.started" && parsed.entry.session_id === sessionId) break;
  }
  return out.reverse();
}

function unique(values: unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v !== "" && v !== "none"))];
}

export type Facts = {
  episode: OpenEpisode;
  closedAt: string;
  outcome: Outcome;
  reason?: string;
  endHead: string;
  commits: string[];
  files: string[];
  tasks: string[];
  checkpoints: string[];
  handovers: string[];
  decisions: string[];
  questions: string[];
};

export async function gatherFacts(here: Here, episode: OpenEpisode, outcome: Outcome, closedAt: string, reason?: string): Promise<Facts> {
  const entries = episodeEntries(here, episode.session_id);
  const p = here.position;
  const start = episode.start_head;
  const diverged = start !== "NONE" && start !== p.head && !(await isAncestor(p.worktree, start, p.head));
  const commits = diverged ? ["diverged"] : start === "NONE" ? [] : (await commitsSince(p, start)).map((c) => c.split(" ")[0]!);
  const files = await filesSince(p, start === "NONE" ? undefined : start, await snapshot(p, here.own), here.own);
  return {
    episode,
    closedAt,
    outcome,
    reason,
    endHead: p.head,
    commits,
    files,
    tasks: unique(entries.map((e) => e.task_id)),
    checkpoints: unique(entries.filter((e) => e.event === "task.checkpoint").map((e) => e.checkpoint_path)),
    handovers: unique(entries.filter((e) => e.event === "task.handed_over").map((e) => e.handover_path)),
    decisions: unique(entries.filter((e) => e.event === "decision.recorded").map((e) => e.decision)),
    questions: unique(entries.filter((e) => e.event === "question.opened").map((e) => e.question)),
  };
}

type Section = (f: Facts, here: Here) => string[];

function quoteRecord(here: Here, rel: string, max: number): string[] {
  try {
    const text = readFileSync(join(here.position.worktree, rel), "utf8");
    const body = splitFrontMatter(text)?.body ?? "";
    return body.split("\n").filter((l) => l.trim() !== "").slice(0, max).map((l) => `> ${l}`);
  } catch {
    return ["> (the record is no longer readable)"];
  }
}

/** Lines quoted from each checkpoint in Progress Notes: enough to recognise it, not to replace it. */
const QUOTED_LINES = 12;

/** One writer per record section name; a section with nothing to say says so and names its command. */
export const RECORD_SECTIONS: Record<string, Section> = {
  "What Happened": (f) => [
    `Episode ${f.episode.session_id}, opened by ${f.episode.opened_by}${f.episode.provider !== "none" ? ` (${f.episode.provider} session ${f.episode.provider_session})` : ""} at ${f.episode.opened_at}, closed ${f.outcome} at ${f.closedAt}${f.reason ? ` (reason ${f.reason})` : ""}.`,
    `On ${f.episode.branch}: from ${f.episode.start_head.slice(0, 7)} to ${f.endHead.slice(0, 7)}; ${f.commits[0] === "diverged" ? "the start commit is no longer an ancestor (history was rewritten)" : `${f.commits.length} commit(s)`}, ${f.files.length} file(s) changed.`,
    ...(f.tasks.length ? [`Task(s): ${f.tasks.join(", ")}.`] : ["No task was active."]),
  ],
  "Progress Notes": (f, here) =>
    f.checkpoints.length === 0
      ? ["No checkpoint was recorded in this episode (`majordomus checkpoint` records one)."]
      : f.checkpoints.flatMap((c) => [`- ${c}`, ...quoteRecord(here, c, QUOTED_LINES).map((l) => `  ${l}`)]),
  Decisions: (f) => (f.decisions.length === 0 ? ["None recorded in this episode (`majordomus decision` records one)."] : f.decisions.map((d) => `- ${d}`)),
  "Open Questions": (f) => (f.questions.length === 0 ? ["None opened in this episode (`majordomus question add` opens one)."] : f.questions.map((q) => `- ${q}`)),
  Outcome: (f) => [
    `${f.outcome}${f.reason ? ` (client reason: ${f.reason})` : ""}.`,
    ...(f.handovers.length === 0 ? ["No handover was written in this episode (`majordomus handover` writes one)."] : f.handovers.map((h) => `Continuation record: ${h}`)),
  ],
};

export function composeBody(f: Facts, here: Here, policy: LoadedPolicy | undefined): string {
  const names = policy?.policy.session?.record_sections;
  if (!names) return `The policy declares no session.record_sections, so this record has no composed body; \`majordomus session show ${f.episode.session_id}\` shows its facts.`;
  const out: string[] = [];
  for (const name of names) {
    const writer = RECORD_SECTIONS[name];
    out.push(`# ${name}`, "", ...(writer ? writer(f, here) : [`No majordomus writer fills "${name}"; close the episode with an authored summary on stdin to give it content.`]), "");
  }
  return out.join("\n");
}

export function renderRecord(f: Facts, body: string): string {
  const front = emitMap([
    ["schema", "session/v1"],
    ["session_id", f.episode.session_id],
    ["provider", f.episode.provider],
    ["provider_session", f.episode.provider_session],
    ["opened_by", f.episode.opened_by],
    ["worker", f.episode.worker],
    ["opened_at", f.episode.opened_at],
    ["closed_at", f.closedAt],
    ["outcome", f.outcome],
    ["branch", f.episode.branch],
    ["start_head", f.episode.start_head],
    ["end_head", f.endHead],
    ["commits", f.commits],
    ["changed_files", f.files],
    ["tasks", f.tasks],
    ["checkpoints", f.checkpoints],
    ["handovers", f.handovers],
    ["decisions", f.decisions],
    ["questions", f.questions],
  ]);
  return `---\n${front}---\n\n${body.replace(/\s+$/, "")}\n`;
}
