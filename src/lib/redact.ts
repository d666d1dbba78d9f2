/**
 * The one gate every text passes before it enters a record or an answer: secrets are redacted,
 * and a text the rules could not finish is masked, never kept as it was. Two layers:
 *
 * 1. Shapes, one row each (redact/rules.ts): secrets with a published prefix or format, private key
 *    blocks, credentials in URLs, authorization headers and command-line flags, and values whose
 *    name says they are secret (redact/scan.ts). Every rule is linear in its input (a test runs a
 *    ReDoS checker over each and measures its growth on input pumped from it).
 * 2. secretlint's maintained rules over what the shapes left (its recommended preset, Anthropic,
 *    OpenAI, database connection strings, 1Password, Linear): loaded only when the text holds
 *    something token-like at all.
 *
 * Failing closed: a rule that throws, or that takes longer than a linear rule can on a text of its
 * size (the engine with its JIT off gives up on a backtracking pattern after a while and reports no
 * match: a rule gone slow is a rule that may have stopped looking), masks the whole text as
 * `[redacted:unscanned]`. Each match becomes `[redacted:<name>]`; a row with `keep` keeps the name
 * and separator (`password=`) and replaces only the value.
 *
 * `Clean` is a text that went through here: the stores take it, and only this module makes one.
 */
import { log } from "./log.ts";
import { REDACTIONS, type Rule } from "./redact/rules.ts";

export { REDACTIONS, type Rule } from "./redact/rules.ts";

declare const CLEAN: unique symbol;
/** A text this gate redacted (only lib/redact.ts makes one: an architecture rule holds it to that). */
export type Clean = string & { readonly [CLEAN]: true };

/** What a masked text is stored as, when a rule could not finish it. */
export const UNSCANNED = "[redacted:unscanned]";

/**
 * How long one rule may take on a text before it counts as given up: far above what a linear rule
 * takes (about 1 ms per 10 KB with the JIT off, several times that on a loaded machine).
 */
export const ruleBudgetMs = (chars: number) => 1_000 + chars / 100;

/** Injected by a test (redactWith) to run the gate over other rules; the hooks run REDACTIONS. */
type Gate = { rules: readonly Rule[]; budgetMs: (chars: number) => number };
const DEFAULT: Gate = { rules: REDACTIONS, budgetMs: ruleBudgetMs };

/** Below this length a substring search per hint is cheaper than building and running one scan. */
const SCAN_MIN = 2048;
/** Hints shorter than this occur in almost any long text: each is looked for on its own, not in the scan. */
const SCANNED_HINT_MIN = 4;
type HintScan = { pattern: RegExp; all: string[]; short: string[]; within: Map<string, string[]> };
const scans = new WeakMap<readonly Rule[], HintScan>();

/** The scan of a rule table, built on first use: its longer hints as one lookahead, so overlapping hints are all seen. */
function scanner(rules: readonly Rule[]): HintScan {
  let scan = scans.get(rules);
  if (scan) return scan;
  const all = [...new Set(rules.flatMap((r) => r.hints))];
  const long = all.filter((h) => h.length >= SCANNED_HINT_MIN).sort((a, b) => b.length - a.length);
  const escaped = long.map((h) => h.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  scan = {
    pattern: new RegExp(`(?=(${escaped.join("|")}))`, "g"),
    all,
    short: all.filter((h) => h.length < SCANNED_HINT_MIN),
    within: new Map(),
  };
  scans.set(rules, scan);
  return scan;
}

/**
 * Which hints of the table a text holds. A short text: a substring search per hint. A long one (a
 * pasted log): one pass of a single alternation of the longer hints, and a substring search for
 * each short one. At each position the scan sees the longest hint starting there; a shorter one
 * starting there is part of it, so every hint a found one contains counts as found with it.
 */
function hintsIn(lower: string, rules: readonly Rule[]): (hint: string) => boolean {
  if (lower.length < SCAN_MIN) return (hint) => lower.includes(hint);
  const scan = scanner(rules);
  const found = new Set<string>();
  for (const h of scan.short) if (lower.includes(h)) found.add(h);
  scan.pattern.lastIndex = 0;
  for (let m = scan.pattern.exec(lower); m; m = scan.pattern.exec(lower)) {
    const hint = m[1]!;
    let within = scan.within.get(hint);
    if (!within) scan.within.set(hint, (within = scan.all.filter((other) => hint.includes(other))));
    for (const h of within) found.add(h);
    scan.pattern.lastIndex = m.index + 1;
  }
  return (hint) => found.has(hint);
}

/** A rule that could not finish its text: the text is masked whole, and the reason kept. */
class GaveUp extends Error {}

function byShapes(text: string, fired: Set<string>, gate: Gate): string {
  let out = text;
  const holds = hintsIn(text.toLowerCase(), gate.rules);
  for (const rule of gate.rules) {
    if (!rule.hints.some(holds)) continue;
    if (rule.when && !rule.when.test(text)) continue;
    const mark = (kept: string, name = rule.name) => {
      fired.add(name);
      return `${kept}[redacted:${name}]`;
    };
    const started = performance.now();
    try {
      out = rule.scan
        ? rule.scan(out, mark)
        : out.replace(rule.pattern!, (...groups: string[]) => mark(rule.keep ? (groups[rule.keep] ?? "") : ""));
    } catch (err) {
      throw new GaveUp(`rule ${rule.name} failed: ${(err as Error).message}`);
    }
    if (performance.now() - started > gate.budgetMs(out.length))
      throw new GaveUp(`rule ${rule.name} did not finish a ${out.length}-character text in time`);
  }
  return out;
}

/** The text masked whole, when a rule could not finish it: nothing of it is kept unscanned. */
function masked(fired: Set<string>, why: string): string {
  fired.add("unscanned");
  log.warn(`a text could not be scanned for secrets (${why}): it is kept as ${UNSCANNED}`);
  return UNSCANNED;
}

/**
 * What the maintained rule set could find that the shapes above did not: a long run of token
 * characters (24 or more, no separator; a path, a URL or a log line breaks into short runs at its
 * slashes, dots and dashes) or a key block. Loading secretlint costs several milliseconds, most of a
 * prompt hook's time, so a prompt with only URLs, paths and prose never pays it: credentials in a
 * URL and assignments are the shapes' (url-password, assignment).
 */
export const TOKENISH = /(?<![A-Za-z0-9_+])[A-Za-z0-9_+]{24,}|-----BEGIN/;

async function bySecretlint(text: string, fired: Set<string>): Promise<string> {
  if (!TOKENISH.test(text)) return text;
  // The recommended preset bundles every rule package it names (Anthropic, OpenAI, 1Password,
  // Linear, database connection strings and more); naming one beside it registers it twice, and
  // secretlint then refuses the whole run.
  const [{ lintSource }, preset] = await Promise.all([
    import("@secretlint/core"),
    import("@secretlint/secretlint-rule-preset-recommend"),
  ]);
  const rules = [
    { id: "@secretlint/secretlint-rule-preset-recommend", rule: (preset as { creator: unknown }).creator },
  ] as never;
  const result = await lintSource({
    source: { filePath: "/prompt.txt", content: text, ext: ".txt", contentType: "text" },
    options: { config: { rules }, noPhysicFilePath: true, maskSecrets: false },
  });
  const ranges = result.messages
    .map((m) => ({
      from: m.range[0],
      to: m.range[1],
      name: String(m.ruleId).replace(/^@secretlint\/secretlint-rule-/, ""),
    }))
    .sort((a, b) => b.from - a.from);
  let out = text;
  let floor = Number.POSITIVE_INFINITY;
  for (const r of ranges) {
    // Overlapping findings: the rightmost wins, the others are cut to what is left of it.
    const to = Math.min(r.to, floor);
    if (to <= r.from) continue;
    out = `${out.slice(0, r.from)}[redacted:${r.name}]${out.slice(to)}`;
    fired.add(r.name);
    floor = r.from;
  }
  return out;
}

/** The shapes only: synchronous, for texts copied from git or a client (a branch, a path, an error). */
export function redactShapes(text: string): Clean {
  return redactShapesWith(text, DEFAULT);
}

/**
 * Short texts copied from git (paths, commit subjects), each redacted on its own so none can reach
 * into the next. Most lists hold no secret: the lines are looked at together first, and one by one
 * only when that finds something (together they are never redacted less than alone).
 */
export function redactEach(texts: readonly string[]): Clean[] {
  const joined = texts.join("\n");
  if (redactShapes(joined) === joined) return texts as Clean[];
  return texts.map(redactShapes);
}

function redactShapesWith(text: string, gate: Gate): Clean {
  const fired = new Set<string>();
  try {
    return byShapes(text, fired, gate) as Clean;
  } catch (err) {
    return masked(fired, (err as Error).message) as Clean;
  }
}

export async function redact(text: string): Promise<{ text: Clean; redacted: string[] }> {
  return redactWith(text, DEFAULT);
}

/** The gate over another rule table (a test's: a rule that gives up must mask, never keep). */
export async function redactWith(text: string, gate: Partial<Gate> = {}): Promise<{ text: Clean; redacted: string[] }> {
  const use = { ...DEFAULT, ...gate };
  const fired = new Set<string>();
  let out: string;
  try {
    out = byShapes(text, fired, use);
    const started = performance.now();
    out = await bySecretlint(out, fired);
    if (performance.now() - started > use.budgetMs(out.length) * 4)
      throw new GaveUp(`the maintained rules did not finish a ${out.length}-character text in time`);
  } catch (err) {
    out = masked(fired, (err as Error).message);
  }
  return { text: out as Clean, redacted: [...fired].sort() };
}

const marks = (text: string) => text.split("[redacted:").length - 1;

/** A text redacted for keeping, with how many secrets were taken out and by which rules. */
export async function redactCounted(text: string): Promise<{ text: Clean; count: number; rules: string[] }> {
  const clean = await redact(text);
  return { text: clean.text, count: marks(clean.text) - marks(text), rules: clean.redacted };
}

/** What the writer is told of the secrets taken out of what it wrote: how many and by which rules, never a value. */
export function sayRedacted(what: string, done: { count: number; rules: string[] }): void {
  if (done.count > 0)
    log.warn(
      `${done.count} secret(s) redacted from the ${what} before it was stored (${done.rules.join(", ")}); the record says [redacted:<rule>] where each was`,
    );
}

/**
 * A text someone gives majordomus to keep (a record's body, a question, a decision, a task), redacted
 * before it is stored, with the rules prompts get. The writer is told on stderr how many secrets were
 * taken out and by which rules, never the value: an agent learns that it wrote one.
 */
export async function redactForWrite(text: string, what: string): Promise<Clean> {
  const done = await redactCounted(text);
  sayRedacted(what, done);
  return done.text;
}

/** A stored text shown again (a briefing, context, the read side): whatever an earlier version kept unredacted is redacted now, by the shapes. */
export function redactOnRead(text: string): Clean {
  return redactShapes(text);
}
