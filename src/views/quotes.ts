/** The agent's own words a view quotes from a handover: its Next Action, and its account of where things stand. */
import type { View } from "../records/view.ts";
import type { RecordFact } from "../facts/facts.ts";
import { quoted } from "../lib/quote.ts";
import type { Quote } from "./budget.ts";
import { actedWhole, authorship, cutNotice, showCommand } from "./common.ts";

/** `intro`: the line before it says whose words, and whether every step was acted on since (then it is history). */
export function nextActionQuote(
  v: View | undefined,
  acted: RecordFact["acted"],
  after: string,
  intro = true,
): Quote | undefined {
  if (!v || v.history || !v.next_action || v.next_action.length === 0) return undefined;
  const command = showCommand(v);
  return {
    after,
    ...(intro
      ? {
          intro: [
            actedWhole(acted)
              ? `Its Next Action, ${authorship(v)}, every step of which was acted on since: what was asked, quoted as ` +
                `history, not as the thing to do:`
              : `Its Next Action, ${authorship(v)}, quoted:`,
          ],
        }
      : {}),
    lines: v.next_action,
    wrap: quoted,
    command,
    notice: (kept, total, partial, limits) => cutNotice(kept, total, limits, command, partial),
  };
}

/** Where the work stands, in the record's own words (its Objective and Current State), beside its Next Action. */
export function accountQuote(v: View | undefined, after: string): Quote | undefined {
  if (!v || v.history || (!v.objective && !v.current_state)) return undefined;
  const lines = [
    ...(v.objective ? ["Objective:", ...v.objective] : []),
    ...(v.current_state ? [...(v.objective ? [""] : []), "Current State:", ...v.current_state] : []),
  ];
  const command = showCommand(v);
  return {
    after,
    intro: [`Where it stands, ${authorship(v)}, quoted:`],
    lines,
    wrap: quoted,
    command,
    notice: (kept, total) =>
      `… ${kept} of ${total} line(s) of its account quoted to leave room for its Next Action; \`${command}\` prints it whole.`,
  };
}
