/** `majordomus session context`: an episode's working context composed now, a pure view over its facts. */
import { field } from "../lib/quote.ts";
import type { SessionContextFacts } from "../facts/episode.ts";
import { ago } from "../records/labels.ts";

/** What the episode recorded, by kind, with the command that records one. */
const RECORDED = [
  { name: "checkpoints", of: "checkpoints", fill: "majordomus checkpoint" },
  { name: "handovers", of: "handovers", fill: "majordomus handover" },
  { name: "decisions", of: "decisions", fill: "majordomus decision" },
  { name: "questions", of: "questions", fill: "majordomus question add" },
] as const;

export function sessionContextJson(f: SessionContextFacts) {
  const e = f.window.episode;
  return {
    episode: e,
    git: {
      at_open: e.start_head,
      now: f.position.head,
      label: f.label,
      commits_since: f.commitsSince.length,
      working_tree: f.workingTree,
      own_records_uncommitted: f.ownRecords,
    },
    recorded: Object.fromEntries(RECORDED.map((r) => [r.name, f.window[r.of]])),
  };
}

export function sessionContextLines(f: SessionContextFacts): string[] {
  const e = f.window.episode;
  const p = f.position;
  const lines = [
    `# Episode ${e.session_id}`,
    `opened ${e.opened_at} (${ago(f.at, e.opened_at)}) ` +
      `by ${field(e.opened_by)}${e.provider !== "none" ? ` for ${field(e.provider)} session ${field(e.provider_session)}` : ""}; ` +
      `task ` +
      `at open ${e.task_id}`,
    "",
    "## Git now vs at open",
    `at open: ${field(e.branch)} ${e.start_head.slice(0, 7)}, working tree ${e.start_working_tree}`,
    `now: ${field(p.branch)} ${p.head.slice(0, 7)}, working tree ${f.workingTree} — ${f.label}${f.commitsSince.length ? `, ${f.commitsSince.length} commit(s) since` : ""}`,
    "",
    "## Recorded in this episode",
  ];
  for (const r of RECORDED) {
    const items = f.window[r.of];
    lines.push(`${r.name}: ${items.length ? "" : `none yet (\`${r.fill}\`)`}`, ...items.map((i) => `- ${i}`));
  }
  lines.push("", `Frozen at open: ${e.context_path}`);
  return lines;
}
