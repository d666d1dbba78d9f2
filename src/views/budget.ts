/**
 * One budget for every text majordomus hands a client (the start briefing, the fresh-window boot,
 * `context`, a prompt's notices), spent in one stated order:
 *
 * 1. every part in its short form: a line or two that count what it holds and name the command
 *    that shows it whole (a part without one is as short as it gets);
 * 2. the agent's own words (the quote: a Next Action, or a whole handover): whole when they fit
 *    the characters left, else their beginning and one notice with the exact command for the rest;
 * 3. what is left, to the other parts' long forms, one by one in the answer's order of worth.
 *
 * A line budget limits step 3 only: it never cuts the agent's words, nor a part's short form.
 * Only when even the short forms and the quote's first line are over the characters is the text
 * cut at its end. Pure: the views say what each part is.
 */
import { headThatFits, sizeOf, type Budget } from "../lib/fit.ts";

/** A part that was shortened or cut to fit, and the command that shows it whole. */
export type Cut = { part: string; what: string; command: string };

export type Part = {
  id: string;
  lines: readonly string[];
  /** What it gives way to: shorter lines that say what they summarise, and the cut they make. */
  short?: { lines: readonly string[]; cut: Cut };
};

/** The agent's own words, placed after the part `after`: quoted line by line with `wrap`. */
export type Quote = {
  after: string;
  lines: readonly string[];
  wrap: (line: string) => string;
  command: string;
  /** The one notice a cut quote ends with. */
  notice: (kept: number, total: number, partial: boolean, limits: string) => string;
};

export type Rules = {
  /** Which parts get their long form back first, after the quote: the answer's order of worth. */
  order: readonly string[];
  maxLines?: number;
  /** The policy key the line budget comes from, as a notice names it. */
  linesKey: string;
  budget?: Budget;
  /** The one closing line when parts were shortened and the quote is whole: the names of the parts and the budgets. */
  closing: (cuts: readonly Cut[], limits: string) => string | undefined;
  /** The line a text cut at its end closes with (step 4). */
  cutAtEnd: (limits: string) => string;
};

export type Spent = {
  lines: string[];
  /** Lines of the quote (or of the whole text, as a last resort) left out. */
  withheld: number;
  cuts: Cut[];
  /** The parts printed in their short form. */
  shortened: string[];
  /** How many of the lines are the quote's (its notice included): the lines a line budget does not count. */
  quoted: number;
  /** The size as the channel counts it, and the budget it was fitted to. */
  size: number;
  budget?: Budget;
};

const thousands = (n: number) => n.toLocaleString("en-US");

/** The words a notice gives the budgets it cut for. */
export function limitsText(maxLines: number | undefined, budget: Budget | undefined, linesKey: string): string {
  return [
    ...(maxLines !== undefined ? [`${maxLines} lines (${linesKey})`] : []),
    ...(budget ? [`${thousands(budget.chars)} characters (${budget.channel})`] : []),
  ].join(" and ");
}

type Head = { shown: string[]; kept: number; partial: boolean; notice?: string };

export function spend(given: readonly Part[], quote: Quote | undefined, rules: Rules): Spent {
  const counts = rules.budget?.counts ?? "utf16";
  const chars = rules.budget?.chars ?? Number.POSITIVE_INFINITY;
  const size = (lines: readonly string[]) => sizeOf(lines, counts);
  // A short form that is not shorter is no form to yield to.
  const parts = given.map((p) =>
    p.short && size(p.short.lines) >= size(p.lines) && p.short.lines.length >= p.lines.length
      ? { id: p.id, lines: p.lines }
      : p,
  );
  const total = quote?.lines.length ?? 0;
  const whole: Head = { shown: quote ? quote.lines.map(quote.wrap) : [], kept: total, partial: false };
  const everyPart = new Set(parts.map((p) => p.id));
  const shortIn = (long: ReadonlySet<string>) => parts.filter((p) => p.short && !long.has(p.id));
  /** The text with the parts in `long` at full length, the rest short, the quote as `head`; `counted`: its lines but the quote's. */
  const render = (long: ReadonlySet<string>, head: Head, closing?: string | undefined) => {
    const lines: string[] = [];
    let counted = 0;
    for (const p of parts) {
      const own = p.short && !long.has(p.id) ? p.short.lines : p.lines;
      lines.push(...own);
      counted += own.length;
      if (quote && p.id === quote.after) lines.push(...head.shown, ...(head.notice ? [head.notice] : []));
    }
    if (closing !== undefined && shortIn(long).length > 0 && !head.notice) {
      lines.push(closing);
      counted++;
    }
    return { lines: lines.at(-1) === "" ? lines.slice(0, -1) : lines, counted };
  };
  const fitsChars = (r: { lines: string[] }) => size(r.lines) <= chars;
  const fits = (r: { lines: string[]; counted: number }) =>
    fitsChars(r) && (rules.maxLines === undefined || r.counted <= rules.maxLines);
  const done = (
    lines: string[],
    withheld: number,
    cuts: Cut[],
    long: ReadonlySet<string> = everyPart,
    head: Head = whole,
  ): Spent => ({
    lines,
    withheld,
    cuts,
    shortened: shortIn(long).map((p) => p.id),
    quoted: head.shown.length + (head.notice ? 1 : 0),
    size: size(lines),
    ...(rules.budget ? { budget: rules.budget } : {}),
  });

  const full = render(everyPart, whole);
  if (fits(full)) return done(full.lines, 0, []);
  // What a notice names: only the budgets the text at full length is over.
  const over = limitsText(
    rules.maxLines !== undefined && full.counted > rules.maxLines ? rules.maxLines : undefined,
    rules.budget && !fitsChars(full) ? rules.budget : undefined,
    rules.linesKey,
  );
  const closing = (long: ReadonlySet<string>) =>
    rules.closing(
      shortIn(long).map((p) => p.short!.cut),
      over,
    );
  const widestClosing = closing(new Set());

  // Steps 1 and 2: every part short; the quote whole if the characters allow it, else its head.
  const none = new Set<string>();
  let head = whole;
  if (quote && !fitsChars(render(none, whole, widestClosing))) {
    const limits = limitsText(undefined, rules.budget, rules.linesKey);
    const frame = render(none, { ...whole, shown: [], notice: quote.notice(total, total, true, limits) });
    const fitted = headThatFits(quote.lines, chars - size(frame.lines) - 1, counts, quote.wrap);
    head = { ...fitted, notice: quote.notice(fitted.kept, total, fitted.partial, limits) };
  }
  // Step 3: the other parts' long forms, in the answer's order of worth, while they fit (none when the quote was cut).
  const long = new Set<string>();
  for (const id of head.notice ? [] : rules.order) {
    if (!parts.some((p) => p.id === id && p.short)) continue;
    long.add(id);
    if (!fits(render(long, head, widestClosing))) long.delete(id);
  }
  const made = render(long, head, closing(long));
  const cuts = [
    ...shortIn(long).map((p) => p.short!.cut),
    ...(head.notice ? [{ part: "the Next Action", what: "cut", command: quote!.command }] : []),
  ];
  const withheld = total - head.kept + (head.partial ? 1 : 0);
  if (fitsChars(made) && (total === 0 || head.kept > 0)) return done(made.lines, withheld, cuts, long, head);

  // Step 4: over even so (a budget smaller than the short forms): the text's head, and the command for the rest.
  const last = rules.cutAtEnd(limitsText(undefined, rules.budget, rules.linesKey));
  const cut = headThatFits(made.lines, chars - size([last]) - 1, counts);
  return done(
    [...cut.shown, last],
    made.lines.length - cut.kept,
    [...cuts, { part: "the text", what: "cut at its end", command: "majordomus context" }],
    long,
    { shown: [], kept: 0, partial: false },
  );
}
