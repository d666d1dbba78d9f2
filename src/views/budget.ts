/**
 * One budget for every text a client is handed, spent in order: (1) every part in its short form, (2) the agent's own
 * words whole when they fit, else their head and one notice, (3) the other parts' long forms by worth. A line budget
 * limits step 3 only. Only when the short forms and the quote's first line are over is the text cut at its end. Pure.
 */
import { headThatFits, sizeOf, type Budget } from "../lib/fit.ts";

export type Cut = { part: string; what: string; command: string };

export type Part = {
  id: string;
  lines: readonly string[];
  short?: { lines: readonly string[]; cut: Cut };
};

export type Quote = {
  after: string;
  lines: readonly string[];
  wrap: (line: string) => string;
  command: string;
  notice: (kept: number, total: number, partial: boolean, limits: string) => string;
};

export type Rules = {
  order: readonly string[];
  maxLines?: number;
  linesKey: string;
  budget?: Budget;
  closing: (cuts: readonly Cut[], limits: string) => string | undefined;
  cutAtEnd: (limits: string) => string;
};

export type Spent = {
  lines: string[];
  withheld: number;
  cuts: Cut[];
  shortened: string[];
  /** Lines of the quote (its notice too), which a line budget does not count. */
  quoted: number;
  size: number;
  budget?: Budget;
};

const thousands = (n: number) => n.toLocaleString("en-US");

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
  const parts = given.map((p) =>
    p.short && size(p.short.lines) >= size(p.lines) && p.short.lines.length >= p.lines.length
      ? { id: p.id, lines: p.lines }
      : p,
  );
  const total = quote?.lines.length ?? 0;
  const whole: Head = { shown: quote ? quote.lines.map(quote.wrap) : [], kept: total, partial: false };
  const everyPart = new Set(parts.map((p) => p.id));
  const shortIn = (long: ReadonlySet<string>) => parts.filter((p) => p.short && !long.has(p.id));
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

  // Steps 1 and 2.
  const none = new Set<string>();
  let head = whole;
  if (quote && !fitsChars(render(none, whole, widestClosing))) {
    const limits = limitsText(undefined, rules.budget, rules.linesKey);
    const frame = render(none, { ...whole, shown: [], notice: quote.notice(total, total, true, limits) });
    const fitted = headThatFits(quote.lines, chars - size(frame.lines) - 1, counts, quote.wrap);
    head = { ...fitted, notice: quote.notice(fitted.kept, total, fitted.partial, limits) };
  }
  // Step 3, none when the quote was cut.
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

  // Step 4: over even so.
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
