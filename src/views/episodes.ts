/** The texts `majordomus session …` prints about episodes, open and closed: pure functions of what the command gathered. */
import { field } from "../lib/quote.ts";
import type { DescribedEpisode } from "../facts/open-episode.ts";
import { ago } from "../records/labels.ts";
import type { Because } from "../session/pick.ts";
import type { OpenEpisode } from "../session/store.ts";
import { PAGE } from "../lib/page.ts";

const OPEN_NAMED = PAGE;

export const deliveryLine = (v: { state: string; cause: string } | null | undefined) =>
  v ? `Briefing: ${v.state.replace("_", " ")} — ${v.cause}` : undefined;

export const who = (e: OpenEpisode) =>
  e.provider !== "none" ? `${field(e.provider)} session ${field(e.provider_session)}` : "by hand";

export const openLine = (at: Date, e: OpenEpisode) => `${e.session_id} (${who(e)}, opened ${ago(at, e.opened_at)})`;

/** At most OPEN_NAMED, the rest counted: a crashed client's episodes pile up by the thousand until `recover`. */
export function openLines(at: Date, newest: readonly OpenEpisode[], prefix = ""): string[] {
  const lines = newest.slice(0, OPEN_NAMED).map((e) => `${prefix}${openLine(at, e)}`);
  if (newest.length > OPEN_NAMED)
    lines.push(
      `… and ${newest.length - OPEN_NAMED} older open episode(s) (\`majordomus session status ` +
        `--json\` lists every one; \`majordomus recover --check\` names those stranded)`,
    );
  return lines;
}

export function openedLines(e: OpenEpisode, kept: boolean): string[] {
  return [
    `session ${e.session_id} ${kept ? "already open here; kept" : "opened"} at ${e.opened_at} (head ${e.start_head.slice(0, 7)})`,
    `working context: ${e.context_path}`,
  ];
}

export type HandedWork = { ticket: string; event: string; age_ms: number; worker_lost: boolean };

export type StatusFacts = {
  at: Date;
  mine?: DescribedEpisode & { delivery: { state: string; cause: string } | null };
  because: Because | null;
  several?: number;
  others: OpenEpisode[];
  handed: HandedWork[];
};

const ONLY = "the only open episode of this checkout";

export function statusLines(s: StatusFacts): string[] {
  const lines: string[] = [];
  const d = s.mine;
  if (d) {
    lines.push(
      `Episode ${d.session_id}${s.because === ONLY ? ` (${ONLY}; this process runs in no client session)` : ""}, ` +
        `opened ${d.opened_at} (${d.age}) by ${field(d.opened_by)}${d.provider !== "none" ? `; provider ${field(d.provider)} (session ${field(d.provider_session)})` : ""}`,
      `On ${field(d.branch)} from ${d.start_head.slice(0, 7)} (${d.start_label}); working context ${d.context_path}`,
    );
    const delivered = deliveryLine(d.delivery);
    if (delivered) lines.push(delivered);
  } else if (s.several !== undefined)
    lines.push(`${s.several} episodes are open in this checkout; this process belongs to none of them:`);
  else lines.push("No episode is open in this checkout.");
  lines.push(...openLines(s.at, s.others, d ? "Also open: " : "Open: "));
  for (const h of s.handed)
    lines.push(
      `Still being written: ${h.event} work a hook handed off ${Math.round(h.age_ms / 1000)} s ` +
        `ago (${h.ticket})${h.worker_lost ? "; its worker died, see `majordomus doctor`" : ""}`,
    );
  return lines;
}

export function shownOpenLines(d: DescribedEpisode, delivery: { state: string; cause: string } | null): string[] {
  return [
    `Episode ${d.session_id} is open (${who(d)}), opened ${d.opened_at} (${d.age}) by ${field(d.opened_by)}`,
    `On ${field(d.branch)} from ${d.start_head.slice(0, 7)} (${d.start_label}); task at open ${d.task_id}`,
    `Working context: ${d.context_path}`,
    ...(delivery ? [deliveryLine(delivery)!] : []),
    "Its record is written when it closes; `majordomus session context` composes it now.",
  ];
}

export function closedLine(meta: Record<string, unknown>, label: string, path: string): string {
  return [meta.closed_at, meta.session_id, meta.outcome, meta.branch, label, path].join("  ");
}

export function closedContextLine(meta: Record<string, unknown>, path: string): string {
  const id = String(meta.session_id);
  return (
    `${id} is closed (${meta.outcome} at ${meta.closed_at}); its record is ${path}: ` +
    `\`majordomus session show ${id}\``
  );
}
