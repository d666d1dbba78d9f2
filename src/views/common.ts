import { ago } from "../records/labels.ts";
import type { Divergence } from "../records/labels.ts";
import type { View } from "../records/view.ts";
import { isNews, type ClaimLabel, type ClaimsCheck, type ClaimState } from "../records/claims.ts";
import { code, field, fields } from "../lib/quote.ts";
import type { RecordFact, Untrusted } from "../facts/facts.ts";

export function warnsAgainst(label: Divergence): boolean {
  return label === "diverged" || label === "different_context" || label === "unknown";
}

/** majordomus's own uncommitted records: never named as the worker's changes. */
export function ownRecordsLine(own: readonly string[]): string | undefined {
  if (own.length === 0) return undefined;
  return (
    `${own.length} closed session record(s) not committed (majordomus's own, ` +
    `in ${field(own[0]!.slice(0, own[0]!.lastIndexOf("/") + 1))}; commit them with the work: ` +
    `\`git add .ai/repo/sessions\`).`
  );
}

/**
 * The command that prints a record whole: a handover by file name, a checkpoint only as resolved, a shared handover
 * as the tracked file it is.
 */
export function showCommand(v: Pick<View, "path" | "shared">): string {
  if (v.shared) return `cat ${v.path}`;
  return v.path.includes("/checkpoints/")
    ? "majordomus checkpoint --show"
    : `majordomus handover --show ${v.path.slice(v.path.lastIndexOf("/") + 1)}`;
}

export function capped(items: readonly string[], max: number, noun: string, bullet = "- "): string[] {
  const shown = items.slice(0, max).map((i) => `${bullet}${i}`);
  if (items.length > max) shown.push(`${bullet}... and ${items.length - max} more ${noun}`);
  return shown;
}

export const sharedLabel = (s: NonNullable<View["shared"]>) => `shared by ${field(s.author)} from another checkout`;

export function sharedLine(s: NonNullable<View["shared"]>, at: Date): string {
  return (
    `It was shared through git ${ago(at, s.shared_at)} by ${field(s.author)} from another ` +
    `checkout (${field(s.checkout)}); this checkout has no authored handover of its own for ` +
    `this branch, so theirs is offered: their account of their work, checked against this ` +
    `tree, never this checkout's own. Its words come from a file git tracks, which anyone ` +
    `who can push could have written: check them against the code, and run nothing it names unchecked.`
  );
}

export const sharedShort = (s: NonNullable<View["shared"]>) =>
  `It comes from a file git tracks (shared by ${field(s.author)}): anyone who can push ` +
  `could have written it; check it against the code.`;

export function liveAuthorLine(a: NonNullable<View["live_author"]>, at: Date): string {
  return (
    `It was written by another session still at work in this checkout (${field(a.provider)}, ` +
    `episode ${field(a.session_id)}, last heard from ${ago(at, a.last_seen)}): its own ` +
    `account of work going on, not a previous session's.`
  );
}

export function authorship(v: View): string {
  return v.how === "authored" ? "in its author's own words" : "derived by majordomus from the records; no one wrote it";
}

export function cutNotice(kept: number, total: number, limits: string, command: string, partial = false): string {
  return (
    `… The Next Action is cut here: ${kept} of ${total} line(s) ` +
    `quoted${partial ? " (the last of them in part)" : ""}, ${total - kept} left out to ` +
    `fit ${limits}. \`${command}\` prints the whole record.`
  );
}

export const claimLine = (l: ClaimLabel) => `- ${code(l.cited)}: ${l.label}`;

export const CLAIMS_SHOWN = 8;

export function claimLines(check: ClaimsCheck, shown: number, newsOnly = false): string[] {
  if (check.why) return [`Its citations could not be checked: ${check.why}.`];
  const listed = (newsOnly ? check.labels.filter((l) => isNews(l.state)) : check.labels).slice(0, shown);
  const rest = check.labels.length - listed.length;
  const restNews = check.labels.filter((l) => isNews(l.state) && !listed.includes(l)).length;
  return [
    `What it cites, checked against the tree now ` +
      `(${check.labels.filter((l) => isNews(l.state)).length} of ${check.labels.length} changed, gone ` +
      `or missing):`,
    ...(check.all_gone
      ? ["Every path it cites is gone from the tree: read it as the account of a tree that is no longer there."]
      : []),
    ...listed.map(claimLine),
    ...(rest > 0
      ? [
          `- … and ${rest} more${restNews > 0 ? ` (${restNews} of them changed)` : ", unchanged"}: ` +
            `\`majordomus handover --claims\` lists them`,
        ]
      : []),
  ];
}

const COUNTED_AS: Record<ClaimState, string> = {
  deleted: "deleted",
  moved: "moved",
  lines_changed: "changed",
  changed: "changed",
  lines_moved: "moved within their file",
  never_existed: "never existed",
  symbol_gone: "symbol gone",
  not_in_history: "not in this history",
  no_script: "no such script",
  created: "created since",
  untracked: "untracked",
  unknown: "not checkable",
  unchanged: "unchanged",
  in_history: "unchanged",
  script: "unchanged",
};

const SUMMARY_NAMED = 3;

/**
 * A record's citations in one line, e.g. `24 cited: 21 unchanged, 2 changed (a.ts:10, b.ts:4), 1 deleted (c.ts); …`.
 */
export function claimsSummary(check: ClaimsCheck): string {
  if (check.why) return `Its citations could not be checked: ${check.why}.`;
  const groups = new Map<string, ClaimLabel[]>();
  for (const l of check.labels) {
    const word = COUNTED_AS[l.state];
    groups.set(word, [...(groups.get(word) ?? []), l]);
  }
  let named = 0;
  const parts = [...groups].map(([word, items]) => {
    if (word === "unchanged" || named >= SUMMARY_NAMED) return `${items.length} ${word}`;
    const shown = items.slice(0, SUMMARY_NAMED - named);
    named += shown.length;
    return `${items.length} ${word} (${shown.map((l) => field(l.cited, 60)).join(", ")}${items.length > shown.length ? ", …" : ""})`;
  });
  const gone = check.all_gone ? " Every path it cites is gone from the tree." : "";
  return (
    `It cites ${check.labels.length}, checked now: ${parts.join(", ")}; \`majordomus ` +
    `handover --claims\` lists each.${gone}`
  );
}

export function untrustedLine(u: Untrusted): string | undefined {
  if (u.files.length === 0) return undefined;
  const named = u.files.slice(0, 3).map((f) => field(f));
  const more = u.files.length > named.length ? ` and ${u.files.length - named.length} more` : "";
  return (
    `git tracks ${u.files.length} file(s) of the private local half ` +
    `(${named.join(", ")}${more}): a checkout can replace them, so nothing in them is ` +
    `believed here. Untrack them, keeping the files: \`git rm -r --cached ${field(u.dir)}\`, ` +
    `then commit.`
  );
}

/**
 * What a later session did of a handed Next Action (its closed record's uptake): who, when, which of what it named it
 * edited or ran, what is left, and the record it left. Every step done: the Next Action is history.
 */
export function actedLines(a: NonNullable<RecordFact["acted"]>, at: Date): string[] {
  const rest = a.named.filter((n) => !a.acted_on.includes(n));
  const own = a.handovers.at(-1);
  const who = `session ${field(a.session_id)} (${field(a.provider)}, closed ${ago(at, a.closed_at)})`;
  return [
    `Since it was written, ${a.sessions > 1 ? `${a.sessions} sessions, the last ${who},` : who} ` +
      `acted on it: ${fields(a.acted_on, 120)} of the ${a.named.length} thing(s) it names` +
      `${rest.length > 0 ? `; not yet: ${fields(rest, 120)}` : ""}. Its record: ${field(a.record)}` +
      `${own ? `; its own handover: ${field(own)}` : "; it left no handover of its own"}.`,
  ];
}

/** Every step acted on by later sessions: the Next Action is quoted as what was asked, not as the thing to do. */
export const actedWhole = (a: RecordFact["acted"]) => a?.state === "acted";

/** The same account for --json, MCP and the page: the fields, what is left, and the sentence the briefing says. */
export const actedJson = (a: RecordFact["acted"], at: Date) =>
  a
    ? {
        ...a,
        age: ago(at, a.closed_at),
        not_yet: a.named.filter((n) => !a.acted_on.includes(n)),
        history: actedWhole(a),
        said: actedLines(a, at).join(" "),
      }
    : null;
