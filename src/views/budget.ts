/**
 * One budget for every text a client is handed, spent in order: (1) the parts that are never left out and the agent's
 * own Next Action whole (else its head and one notice, every other part left out); (2) the agent's account of where
 * it stands (a second quote), whole or its head; (3) every other part, in the order of its worth, in its short form;
 * (4) their long forms. A part that does not fit is left out, counted in one closing pointer. A line budget limits
 * steps 3 and 4 only. Pure.
 */
import { headThatFits, sizeOf, type Budget } from "../lib/fit.ts";

export type Cut = { part: string; what: string; command: string };

export type Part = {
  id: string;
  lines: readonly string[];
  short?: { lines: readonly string[]; cut: Cut };
  /** Never left out (the header, the record's labels); a part that is not may yield to nothing. */
  required?: boolean;
  /** How the closing pointer names it when it is left out. */
  name?: string;
};

export type Quote = {
  after: string;
  /** Lines before the quoted ones, shown with them (what they are). */
  intro?: readonly string[];
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
  /** `notice`: said at the end of the Next Action's cut notice (one notice), not as a line of its own. */
  closing: (cuts: readonly Cut[], limits: string, notice?: boolean) => string | undefined;
  cutAtEnd: (limits: string) => string;
  /** The agent's own account beside the Next Action: it yields before the Next Action, after every part of ours. */
  second?: Quote;
  /** Parts not `required` may be left out (the briefing); otherwise each keeps at least its short form. */
  leaveOut?: boolean;
};

export type Spent = {
  lines: string[];
  withheld: number;
  cuts: Cut[];
  shortened: string[];
  /** Lines of the quotes (their intros and notices too), which a line budget does not count. */
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

type Head = { shown: string[]; kept: number; partial: boolean; notice?: string } | "none";
type Level = "long" | "short" | "none";

const wholeOf = (q: Quote | undefined): Head =>
  q ? { shown: q.lines.map(q.wrap), kept: q.lines.length, partial: false } : "none";
const quoteLines = (q: Quote | undefined, h: Head): string[] =>
  !q || h === "none" ? [] : [...(q.intro ?? []), ...h.shown, ...(h.notice ? [h.notice] : [])];

export function spend(given: readonly Part[], quote: Quote | undefined, rules: Rules): Spent {
  const counts = rules.budget?.counts ?? "utf16";
  const chars = rules.budget?.chars ?? Number.POSITIVE_INFINITY;
  const size = (lines: readonly string[]) => sizeOf(lines, counts);
  // A short form no shorter than the long one is no short form.
  const parts = given.map((p) =>
    p.short && size(p.short.lines) >= size(p.lines) && p.short.lines.length >= p.lines.length
      ? { ...p, short: undefined }
      : p,
  );
  const second = rules.second;
  type Plan = { levels: Map<string, Level>; head: Head; state: Head };
  const linesOf = (p: Part, level: Level) =>
    level === "none" ? [] : level === "short" && p.short ? p.short.lines : p.lines;
  const cutsOf = (plan: Plan): Cut[] =>
    parts.flatMap((p) => {
      const level = plan.levels.get(p.id)!;
      if (level === "none" && p.lines.length > 0)
        return [{ part: p.name ?? p.short?.cut.part ?? p.id, what: "left out", command: "majordomus context" }];
      return level === "short" && p.short ? [p.short.cut] : [];
    });
  let over = "";
  const render = (plan: Plan) => {
    const lines: string[] = [];
    let counted = 0;
    const cuts = cutsOf(plan);
    const noticed = quote !== undefined && plan.head !== "none" && plan.head.notice !== undefined;
    const said = cuts.length > 0 ? rules.closing(cuts, over, noticed) : undefined;
    const head: Head =
      noticed && said !== undefined && plan.head !== "none"
        ? { ...plan.head, notice: `${plan.head.notice} ${said}` }
        : plan.head;
    for (const p of parts) {
      const own = linesOf(p, plan.levels.get(p.id)!);
      lines.push(...own);
      counted += own.length;
      if (second && p.id === second.after) lines.push(...quoteLines(second, plan.state));
      if (quote && p.id === quote.after) lines.push(...quoteLines(quote, head));
    }
    if (said !== undefined && !noticed) {
      lines.push(said);
      counted++;
    }
    return { lines: lines.at(-1) === "" ? lines.slice(0, -1) : lines, counted };
  };
  const fitsChars = (r: { lines: string[] }) => size(r.lines) <= chars;
  const fits = (r: { lines: string[]; counted: number }) =>
    fitsChars(r) && (rules.maxLines === undefined || r.counted <= rules.maxLines);
  const limits = limitsText(undefined, rules.budget, rules.linesKey);
  /** The longest head of a quote that fits beside the rest of `plan`, with its notice; "none" when no line does. */
  const fitted = (q: Quote, plan: Plan, which: "head" | "state"): Head => {
    const frame = render({
      ...plan,
      // The notice at its widest (figures no longer than the total's) holds the room its own figures take.
      [which]: { shown: [], kept: 0, partial: true, notice: q.notice(q.lines.length, q.lines.length, true, limits) },
    });
    const h = headThatFits(q.lines, chars - size(frame.lines) - 1, counts, q.wrap);
    return { ...h, notice: q.notice(h.kept, q.lines.length, h.partial, limits) };
  };
  const done = (plan: Plan, lines: string[], extra: Cut[] = []): Spent => {
    const head = plan.head;
    const cut = head !== "none" && head.notice !== undefined;
    return {
      lines,
      withheld: (quote?.lines.length ?? 0) - (head === "none" ? 0 : head.kept) + (cut && head.partial ? 1 : 0),
      cuts: [
        ...cutsOf(plan),
        ...(cut ? [{ part: "the Next Action", what: "cut", command: quote!.command }] : []),
        ...extra,
      ],
      shortened: parts.filter((p) => plan.levels.get(p.id) !== "long" && p.lines.length > 0).map((p) => p.id),
      quoted: quoteLines(quote, head).length + quoteLines(second, plan.state).length,
      size: size(lines),
      ...(rules.budget ? { budget: rules.budget } : {}),
    };
  };

  const all: Plan = { levels: new Map(parts.map((p) => [p.id, "long"])), head: wholeOf(quote), state: wholeOf(second) };
  const full = render(all);
  if (fits(full)) return done(all, full.lines);
  over = limitsText(
    rules.maxLines !== undefined && full.counted > rules.maxLines ? rules.maxLines : undefined,
    rules.budget && !fitsChars(full) ? rules.budget : undefined,
    rules.linesKey,
  );

  // Step 1: what is never left out at its shortest, and the Next Action, whole or its head.
  const floor = (p: Part): Level => (p.required || !rules.leaveOut ? (p.short ? "short" : "long") : "none");
  const plan: Plan = { levels: new Map(parts.map((p) => [p.id, floor(p)])), head: wholeOf(quote), state: "none" };
  if (quote && !fitsChars(render(plan))) plan.head = fitted(quote, plan, "head");
  const cutQuote = plan.head !== "none" && plan.head.notice !== undefined;
  // Step 2: the agent's account, whole or its head, in the room the Next Action left.
  if (second && !cutQuote) {
    plan.state = wholeOf(second);
    if (!fitsChars(render(plan))) plan.state = fitted(second, { ...plan, state: "none" }, "state");
    if (plan.state !== "none" && (plan.state.kept === 0 || !fitsChars(render(plan)))) plan.state = "none";
  }
  // Steps 3 and 4: our parts, short first, then long, by worth, while each fits; none while the agent's words are cut.
  const cutState = second !== undefined && (plan.state === "none" || plan.state.notice !== undefined);
  if (!cutQuote && !cutState) {
    const ranked = new Set([...rules.order, ...parts.map((p) => p.id)]);
    const byId = new Map(parts.map((p) => [p.id, p]));
    for (const level of ["short", "long"] as const)
      for (const id of ranked) {
        const p = byId.get(id);
        const was = plan.levels.get(id);
        if (!p || was === "long" || (level === "short" && was === "short")) continue;
        plan.levels.set(id, level === "short" && p.short ? "short" : "long");
        if (!fits(render(plan))) plan.levels.set(id, was!);
      }
  }
  const made = render(plan);
  const kept = plan.head === "none" ? 0 : plan.head.kept;
  if (fitsChars(made) && (!quote || quote.lines.length === 0 || kept > 0)) return done(plan, made.lines);

  // Step 5: over even so.
  const last = rules.cutAtEnd(limits);
  const cut = headThatFits(made.lines, chars - size([last]) - 1, counts);
  return {
    ...done(
      { ...plan, head: { shown: [], kept: 0, partial: false } },
      [...cut.shown, last],
      [{ part: "the text", what: "cut at its end", command: "majordomus context" }],
    ),
    withheld: made.lines.length - cut.kept,
  };
}

/** One pointer for every part in short or left out: their own lines name their commands; `context` has them all. */
export function closing(cuts: readonly Cut[], limits: string, notice = false): string {
  const out = cuts.filter((c) => c.what === "left out").length;
  const short = cuts.filter((c) => c.what !== "left out").map((c) => c.part);
  const said = [
    ...(short.length > 0 ? [`${short.join(", ")} in short, each naming its command`] : []),
    ...(out > 0 ? [`${out} more part(s) left out: \`majordomus context\` has everything`] : []),
  ];
  return notice ? `Besides it: ${said.join("; ")}.` : `(Shortened to fit ${limits}: ${said.join("; ")}.)`;
}

export const cutAtEnd = (limits: string) => `(Cut here to fit ${limits}: \`majordomus context\` prints the rest.)`;
