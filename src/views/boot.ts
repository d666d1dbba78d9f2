/**
 * A fresh window's boot, read in place of Claude Code's summary when the mod answers a compaction: the briefing's
 * parts, then the agent's newest handover quoted whole with its labels, or a statement that there is none. Never a
 * line of the conversation. The handover is the quote, spent first.
 */
import type { Facts, Need } from "../facts/facts.ts";
import type { Budget } from "../lib/fit.ts";
import { printable } from "../lib/printable.ts";
import { requireNumber } from "../policy/index.ts";
import { BRIEFING_NEEDS, briefingParts, closing, cutAtEnd } from "./briefing.ts";
import { spend, type Part, type Quote } from "./budget.ts";
import { showCommand } from "./common.ts";
import { quoted } from "../lib/quote.ts";

export const BOOT_NEEDS = BRIEFING_NEEDS satisfies readonly Need[];

export type BootWindow = { id: string; ordinal: number; trigger?: string };

function ownHandover(f: Facts): { lines: string[]; quote?: Omit<Quote, "after"> } {
  const v = f.handover.view;
  if (!v || v.how !== "authored")
    return {
      lines: [
        "No handover written by an agent or a person is on record for this worktree and branch, " +
          "so there is none to quote:",
        "what the briefing above shows is all majordomus knows. Write one with `majordomus " +
          "handover` before this window fills.",
      ],
    };
  if (v.history)
    return {
      lines: [
        `The newest handover an agent wrote, ${v.path}, is history, not instruction ` +
          `(${v.history_why ?? v.freshness}); it is not quoted. Decide from the repository as it stands.`,
      ],
    };
  const command = showCommand(v);
  return {
    lines: [
      `The agent's own handover, ${v.path} (${v.how}, ${v.match}, ${v.divergence}, ${v.freshness}, ${v.age ? `${v.age} old` : "age unknown"}${v.session !== "none" ? `, written in episode ${v.session}` : ""}), ` +
        `in its author's own words:`,
    ],
    quote: {
      lines: v.body.replace(/\s+$/, "").split("\n"),
      wrap: quoted,
      command,
      notice: (kept, total, partial, limits) =>
        `… The handover is cut here: ${kept} of ${total} line(s) ` +
        `quoted${partial ? " (the last of them in part)" : ""}, ${total - kept} left out to ` +
        `fit ${limits}. \`${command}\` prints the whole record.`,
    },
  };
}

const topPart = (window: BootWindow): Part => ({
  id: "top",
  lines: [
    `# majordomus fresh window ${window.id}`,
    "",
    `Window :${window.ordinal - 1} of this episode ended ` +
      `(${window.trigger === "auto" ? "Claude Code's context window was full" : "a fresh window was asked for"}). ` +
      `majordomus ` +
      `replaced the client's summary of it with this boot, built from the repository's own ` +
      `records, not from the conversation: the briefing, then the newest handover an agent or ` +
      `a person wrote. Git is the truth where they disagree.`,
    "",
  ],
});

const TAIL: Part = {
  id: "tail",
  lines: [
    "",
    "Resume from the Next Action above. The earlier conversation is not here; `majordomus " +
      "context` gives the whole picture, and majordomus's MCP history tools (`history_windows`, " +
      "`history_read`) read the client's own transcript of it on demand.",
    "When this window fills too, write your handover with `majordomus handover` first, then end your turn.",
  ],
};

/** Its Next Action is not quoted twice: the handover holds it. */
export function boot(f: Facts, window: BootWindow, budget?: Budget): string[] {
  const top = topPart(window);
  const tail = TAIL;
  const own = ownHandover(f);
  const briefed = briefingParts(f);
  const parts = own.quote
    ? briefed.parts.map((p) =>
        p.id === "handover"
          ? { ...p, lines: [...p.lines.slice(0, -1), "Its Next Action is quoted below, in the whole handover."] }
          : p,
      )
    : briefed.parts;
  const handover: Part = {
    id: "resume",
    lines: ["", "## The handover to resume from", "", ...own.lines.map(printable)],
  };
  const quote: Quote | undefined = own.quote
    ? { ...own.quote, after: "resume" }
    : briefed.quote && { ...briefed.quote };
  return spend([top, ...parts, handover, tail], quote, {
    order: briefed.order,
    maxLines:
      requireNumber(f.policy, "session.briefing_budget_lines") +
      top.lines.length +
      handover.lines.length +
      tail.lines.length,
    linesKey: "session.briefing_budget_lines",
    budget,
    closing,
    cutAtEnd,
  }).lines;
}
