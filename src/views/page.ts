/**
 * The continuity page: one HTML document over the continuity account, every card saying what it shows or that there is
 * nothing. No script and no external asset of its own: the shell a browser is given first (serve/shell.ts) fetches it
 * with the page's key and again every few seconds; its meta refresh serves a client that fetches it with the token.
 */
import type { Continuity, RecordSummary } from "./continuity.ts";
import type { UptakeReport, UptakeRow } from "./uptake.ts";
import { ago } from "../records/labels.ts";
import { parseIsoTime } from "../lib/clock.ts";

export type PageFacts = {
  continuity: Continuity;
  /** The capture state of each client wired here, as `capture status` says it (executed). */
  providers: Array<{ provider: string; aspect: string; state: string; reason: string }>;
  /** The resumed handover's own account of where things stand, in its author's words. */
  resume?: { objective?: string[]; current_state?: string[] };
  /** The person's clock: times are shown in their zone (offset from UTC in minutes) and relative to now. */
  clock: { offsetMinutes: number };
  recovery: { stranded: number; unfinished_closes: number; threshold: string | null };
  uptake: UptakeReport;
  refreshSeconds: number;
};

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (text: unknown) => String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Card = { id: string; title: string; body: string };

const absent = (text: string) => `<p class="absent">${esc(text)}</p>`;

/** An ISO time as the person reads it: their local date and time, and how long ago. */
function when(iso: string, now: Date, offsetMinutes: number): string {
  const at = parseIsoTime(iso);
  if (!at) return iso;
  const local = new Date(at.getTime() + offsetMinutes * 60_000).toISOString();
  const sign = offsetMinutes < 0 ? "−" : "+";
  const abs = Math.abs(offsetMinutes);
  const zone = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${local.slice(0, 10)} ${local.slice(11, 16)} ${zone} (${ago(now, iso)})`;
}
const rows = (pairs: Array<[string, unknown]>) =>
  `<dl>${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>`;

/** The author's own account, quoted: what the record says the work is and where it stands. */
function account(resume: PageFacts["resume"]): string {
  const quoted = (title: string, lines?: string[]) =>
    lines && lines.length > 0
      ? `<h3>${esc(title)}</h3><blockquote class="state">${esc(lines.join("\n"))}</blockquote>`
      : "";
  return resume ? `${quoted("Objective", resume.objective)}${quoted("Current State", resume.current_state)}` : "";
}

function record(r: RecordSummary, resume?: PageFacts["resume"]): string {
  const next = r.next_action
    ? `<blockquote class="next-action">${esc(r.next_action)}</blockquote>`
    : r.next_action_withheld
      ? `<p class="withheld">${esc(r.next_action_withheld)}</p>`
      : "";
  return (
    `<p><span class="badge ${esc(r.freshness)}" data-labels>${esc(r.labels)}</span> <span ` +
    `class="age">${esc(r.age ?? "age unknown")} old</span> · ${esc(r.how)} · ${esc(r.match)}</p>${rows([
      ["path", r.path],
      ["git", `${r.divergence}: ${r.divergence_meaning}`],
      ["freshness", r.freshness_reason],
      ["task", r.task_id],
      ["episode", r.episode ?? "none"],
    ])}${account(resume)}${acted(r.acted_since)}${next ? `<h3>${r.acted_since?.history ? "Next Action (acted on since: what was asked)" : "Next Action"}</h3>${next}` : ""}`
  );
}

const acted = (a: RecordSummary["acted_since"]) =>
  a ? `<p class="acted" data-acted="${esc(a.state)}">${esc(a.said)}</p>` : "";

const SHADES = [
  ["acted", "#6b8e4e"],
  ["partly", "#d9a63a"],
  ["ignored", "#c0504d"],
  ["not_provable", "#b5b5b0"],
] as const;

/** One client's handed sessions as a bar of its states (CSS widths, no script), with the counts in words beside it. */
function uptakeBar(r: UptakeRow): string {
  const parts = SHADES.filter(([s]) => r[s] > 0).map(
    ([s, colour]) =>
      `<span style="width:${((100 * r[s]) / r.handed).toFixed(1)}%;background:${colour}" title="${s.replace("_", " ")}: ${r[s]}"></span>`,
  );
  const words = SHADES.map(([s]) => `${r[s]} ${s.replace("_", " ")}`).join(", ");
  return (
    `<p><strong>${esc(r.key)}</strong>: ${r.handed} of ${r.sessions} handed one; ${esc(words)}; median turn to the ` +
    `first action ${r.median_turn ?? "—"}</p><div class="bar">${parts.join("")}</div>`
  );
}

const MEANING: Record<(typeof SHADES)[number][0], string> = {
  acted: "acted on every named file or command",
  partly: "acted on some of them",
  ignored: "took turns, and acted on none",
  not_provable: "no transcript to read, nothing named, or no turn taken",
};

const LEGEND = `<ul class="legend">${SHADES.map(
  ([s, colour]) => `<li><span style="background:${colour}"></span>${esc(s.replace("_", " "))}: ${esc(MEANING[s])}</li>`,
).join("")}</ul>`;

export function uptakeBody(u: UptakeReport): string {
  return u.handed === 0
    ? absent(`none of the last ${u.sessions} closed session(s) was handed an authored Next Action (majordomus report)`)
    : `<p>Of the last ${u.sessions} closed session(s), measured from each client's transcript ` +
        `(majordomus report):</p>${u.by_client
          .filter((r) => r.handed > 0)
          .map(uptakeBar)
          .join("")}${LEGEND}`;
}

function cards(p: PageFacts): Card[] {
  const c = p.continuity;
  const now = parseIsoTime(c.generated_at) ?? new Date(0);
  const at = (iso: string) => when(iso, now, p.clock.offsetMinutes);
  return [
    {
      id: "checkout",
      title: "This checkout",
      body: rows([
        ["folder", c.checkout.worktree],
        ["branch", c.checkout.branch],
        ["head", c.checkout.head.slice(0, 12)],
        ["repository id", c.checkout.repository],
      ]),
    },
    {
      id: "episodes",
      title: "Open episodes",
      body:
        c.episodes.open.length === 0
          ? absent(c.episodes.open_absent ?? "none")
          : `<ul>${c.episodes.open.map((e) => `<li><code>${esc(e.session_id)}</code> ${esc(e.provider)} session ${esc(e.provider_session)}, ` + `opened ${esc(e.age)} by ${esc(e.opened_by)}</li>`).join("")}${c.episodes.open_more > 0 ? `<li>… and ${c.episodes.open_more} older open episode(s): <code>majordomus session ` + `status --json</code> lists every one, <code>majordomus recover --check</code> names ` + `those stranded</li>` : ""}</ul>`,
    },
    {
      id: "task",
      title: "Task",
      body: c.task
        ? rows([
            ["task", c.task.task],
            ["id", c.task.id],
            ["scope", c.task.scope.join(", ")],
            ["started", at(c.task.started_at)],
          ])
        : absent(c.task_absent ?? "no active task"),
    },
    {
      id: "resume",
      title: "Resume from",
      body: c.handover
        ? `${record(c.handover, p.resume)}${c.handover_since ? `<p class="since">Since then: a derived ` + `record ${esc(c.handover_since.path)} (${esc(c.handover_since.age ?? "?")} old) adds ` + `only what git and the ledger say; it does not replace the account above.</p>` : ""}`
        : absent(c.handover_absent ?? "no handover"),
    },
    {
      id: "checkpoint",
      title: "Newest checkpoint",
      body: c.checkpoint ? record(c.checkpoint) : absent(c.checkpoint_absent ?? "no checkpoint"),
    },
    {
      id: "blockers",
      title: "Blockers",
      body:
        c.blockers.length === 0
          ? absent("no open question blocks acceptance")
          : `<ol>${c.blockers.map((b) => `<li>${esc(b.text)} <small>(task ${esc(b.task_id)})</small></li>`).join("")}</ol>${c.blockers_more > 0 ? `<p>… and ${c.blockers_more} more: <code>majordomus question list</code></p>` : ""}`,
    },
    {
      id: "closed",
      title: "Closed episodes",
      body:
        c.closed.length === 0
          ? absent("no closed session record on this branch")
          : `<ul>${c.closed.map((e) => `<li><code>${esc(e.session_id)}</code> ${esc(e.outcome)} at ${esc(at(e.closed_at))} (${esc(e.provider)}) ` + `— <code>${esc(e.path)}</code></li>`).join("")}</ul>`,
    },
    { id: "uptake", title: "Did the handover work?", body: uptakeBody(p.uptake) },
    {
      id: "recovery",
      title: "Recovery",
      body:
        p.recovery.stranded + p.recovery.unfinished_closes === 0
          ? absent(`nothing to recover${p.recovery.threshold ? ` (stranded after ${p.recovery.threshold})` : ""}`)
          : rows([
              ["open longer than session.stranded_after", p.recovery.stranded],
              ["closes claimed and not finished", p.recovery.unfinished_closes],
              ["to finish them", "majordomus recover"],
            ]),
    },
    {
      id: "providers",
      title: "Clients and their capture",
      body:
        p.providers.length === 0
          ? absent("no client is wired here (majordomus capture install)")
          : `<table><tr><th>client</th><th>aspect</th><th>state</th><th>why</th></tr>${p.providers.map((r) => `<tr><td>${esc(r.provider)}</td><td>${esc(r.aspect)}</td><td>${esc(r.state)}</td><td>${esc(r.reason)}</td></tr>`).join("")}</table>`,
    },
    {
      id: "trust",
      title: "Before you trust the above",
      body:
        `${rows([
          ["git now", `${c.checkout.branch} at ${c.checkout.head.slice(0, 12)}`],
          ["working tree", c.checkout.working_tree],
          ["closed records not committed", c.checkout.own_records_uncommitted],
        ])}<p>Where the records and git disagree, git wins: run <code>git status</code> ` +
        `and <code>majordomus check</code>.</p>`,
    },
  ];
}

const STYLE =
  `body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f6f6f3;color:#1d1d1b}header{padding:1rem ` +
  `1.5rem;background:#1d1d1b;color:#f6f6f3}main{display:grid;grid-template-columns:repeat(auto-fill,minmax(22rem,1fr));gap:1rem;padding:1rem ` +
  `1.5rem}section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.75rem ` +
  `1rem}h2{font-size:1rem;margin:.2rem 0 .6rem}dl{display:grid;grid-template-columns:auto ` +
  `1fr;gap:.15rem .75rem;margin:.3rem ` +
  `0}dt{color:#666}dd{margin:0;overflow-wrap:anywhere}.absent{color:#666;font-style:italic}.badge{display:inline-block;padding:0 ` +
  `.4rem;border-radius:3px;background:#e8efe2}.badge.aging{background:#f5ecd5}.badge.stale{background:#f3dcdc}blockquote{margin:.5rem ` +
  `0;padding:.4rem .7rem;border-left:3px solid ` +
  `#6b8e4e;background:#f3f7ef;white-space:pre-wrap}.withheld{color:#8a4b00}table{border-collapse:collapse;width:100%}td,th{border-top:1px ` +
  `solid ` +
  `#eee;padding:.2rem .3rem;text-align:left;vertical-align:top}code{font-size:.9em}.bar{display:flex;height:.8rem;` +
  `background:#eee;border-radius:3px;overflow:hidden;margin:0 0 .6rem}.bar span{display:block}` +
  `.legend{list-style:none;padding:0;margin:.4rem 0 0;font-size:.9em}.legend span{display:inline-block;width:.8rem;` +
  `height:.8rem;border-radius:2px;margin-right:.4rem;vertical-align:middle}h3{font-size:.9rem;margin:.6rem 0 .1rem}` +
  `blockquote.state{border-left-color:#8a8a85;background:#f4f4f1}`;

export function pageHtml(p: PageFacts): string {
  const c = p.continuity;
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${p.refreshSeconds}">
<title>majordomus — ${esc(c.checkout.branch)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>majordomus: what this checkout already knows</h1><p>As ` +
    `of ${esc(when(c.generated_at, parseIsoTime(c.generated_at) ?? new Date(0), p.clock.offsetMinutes).replace(/ \(.*\)$/, ""))} ` +
    `(refreshes every ${p.refreshSeconds} s); read-only.</p></header>
<main>
${cards(p)
  .map((card) => `<section id="${card.id}"><h2>${esc(card.title)}</h2>${card.body}</section>`)
  .join("\n")}
</main>
</body>
</html>
`
  );
}
