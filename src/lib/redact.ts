/**
 * The one gate every text passes before it enters a record or an answer. First the shapes (redact/rules.ts, each
 * linear, tested against a ReDoS checker), then secretlint's preset over what they left, loaded only for token-like
 * text. A rule that throws or runs longer than a linear one can masks the whole text as `[redacted:unscanned]`.
 * `Clean` is a text that went through here; only this module makes one.
 */
import { log } from "./log.ts";
import { REDACTIONS, type Rule } from "./redact/rules.ts";
import { Deadline } from "./redact/deadline.ts";

export { REDACTIONS, type Rule } from "./redact/rules.ts";

declare const CLEAN: unique symbol;
export type Clean = string & { readonly [CLEAN]: true };

export const UNSCANNED = "[redacted:unscanned]";

/** Far above a linear rule's time (about 1 ms per 10 KB without the JIT, several times that on a loaded machine). */
export const ruleBudgetMs = (chars: number) => 1_000 + chars / 100;

type Gate = { rules: readonly Rule[]; budgetMs: (chars: number) => number };
const DEFAULT: Gate = { rules: REDACTIONS, budgetMs: ruleBudgetMs };

const SCAN_MIN = 2048;
const SCANNED_HINT_MIN = 4;
type HintScan = { pattern: RegExp; all: string[]; short: string[]; within: Map<string, string[]> };
const scans = new WeakMap<readonly Rule[], HintScan>();

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

/** Which hints a text holds: substring search for a short text, one alternation pass (longest first) for a long one. */
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
    const bound = gate.budgetMs(out.length);
    try {
      out = rule.scan
        ? rule.scan(out, mark, new Deadline(started + bound))
        : out.replace(rule.pattern!, (...groups: string[]) => mark(rule.keep ? (groups[rule.keep] ?? "") : ""));
    } catch (err) {
      throw new GaveUp(`rule ${rule.name} failed: ${(err as Error).message}`);
    }
    if (performance.now() - started > bound)
      throw new GaveUp(`rule ${rule.name} did not finish a ${out.length}-character text in time`);
  }
  return out;
}

function masked(fired: Set<string>, why: string): string {
  fired.add("unscanned");
  log.warn(`a text could not be scanned for secrets (${why}): it is kept as ${UNSCANNED}`);
  return UNSCANNED;
}

/**
 * What secretlint could add to the shapes: a run of 24+ token characters or a key block. Loading it costs most of a
 * prompt hook's time, so prose, paths and URLs never pay it.
 */
export const TOKENISH = /(?<![A-Za-z0-9_+])[A-Za-z0-9_+]{24,}|-----BEGIN/;

async function bySecretlint(text: string, fired: Set<string>): Promise<string> {
  if (!TOKENISH.test(text)) return text;
  // The preset bundles its rule packages; naming one again registers it twice and secretlint refuses the run.
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
    const to = Math.min(r.to, floor);
    if (to <= r.from) continue;
    out = `${out.slice(0, r.from)}[redacted:${r.name}]${out.slice(to)}`;
    fired.add(r.name);
    floor = r.from;
  }
  return out;
}

export function redactShapes(text: string): Clean {
  return redactShapesWith(text, DEFAULT);
}

/** Texts from git, each redacted on its own (looked at together first: most lists hold no secret). */
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

export async function redactCounted(text: string): Promise<{ text: Clean; count: number; rules: string[] }> {
  const clean = await redact(text);
  return { text: clean.text, count: marks(clean.text) - marks(text), rules: clean.redacted };
}

export function sayRedacted(what: string, done: { count: number; rules: string[] }): void {
  if (done.count > 0)
    log.warn(
      `${done.count} secret(s) redacted from the ${what} before it was stored ` +
        `(${done.rules.join(", ")}); the record says [redacted:<rule>] where each was`,
    );
}

/** A text given to keep, redacted before it is stored; the writer is told how many went and by which rules. */
export async function redactForWrite(text: string, what: string): Promise<Clean> {
  const done = await redactCounted(text);
  sayRedacted(what, done);
  return done.text;
}

/** A stored text shown again: whatever an older version kept unredacted is redacted now. */
export function redactOnRead(text: string): Clean {
  return redactShapes(text);
}
