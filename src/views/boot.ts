/**
 * The boot of a fresh window: what the agent reads in place of Claude Code's summary when the
 * mod answers a compaction. The briefing for this checkout (bounded as always), then the agent's
 * own newest handover quoted whole with its labels, or a plain statement that there is none. Built
 * from the records alone: never a line of the conversation it replaces. A pure view over the facts.
 */
import type { Facts, Need } from "../facts/facts.ts";
import { headThatFits, sizeOf, type Budget } from "../lib/fit.ts";
import { printable } from "../lib/printable.ts";
import { BRIEFING_NEEDS, briefing, quoted } from "./briefing.ts";
import { showCommand } from "./common.ts";

export const BOOT_NEEDS = BRIEFING_NEEDS satisfies readonly Need[];

/** The longest handover body quoted whole, in lines; a longer one is cut, and says where the rest is. */
export const BOOT_HANDOVER_LINES = 400;
/** The share of the boot's budget its briefing may take: the rest is the agent's own handover's. */
const BRIEFING_SHARE = 1 / 3;

/** The window the boot opens: `<episode>:<ordinal>`. */
export type BootWindow = { id: string; ordinal: number; trigger?: string };

/** The agent's own handover, quoted whole when it fits `room` (a character budget), else its head and a notice with the command for the rest. */
function ownHandover(f: Facts, budget: Budget | undefined, room: number): string[] {
  const v = f.handover.view;
  if (!v || v.how !== "authored") {
    return [
      "No handover written by an agent or a person is on record for this worktree and branch, so there is none to quote:",
      "what the briefing above shows is all majordomus knows. Write one with `majordomus handover` before this window fills.",
    ];
  }
  if (v.history) {
    return [
      `The newest handover an agent wrote, ${v.path}, is history, not instruction (${v.history_why ?? v.freshness}); it is not quoted. Decide from the repository as it stands.`,
    ];
  }
  const body = v.body.replace(/\s+$/, "").split("\n");
  const intro = `The agent's own handover, ${v.path} (${v.how}, ${v.match}, ${v.divergence}, ${v.freshness}, ${v.age ? `${v.age} old` : "age unknown"}${v.session !== "none" ? `, written in episode ${v.session}` : ""}), quoted whole, in its author's own words:`;
  const command = showCommand(v);
  const limits = [
    `${BOOT_HANDOVER_LINES} lines`,
    ...(budget ? [`${budget.chars.toLocaleString("en-US")} characters (${budget.channel})`] : []),
  ].join(" and ");
  const notice = (kept: number, partial: boolean) =>
    `… The handover is cut here: ${kept} of ${body.length} line(s) quoted${partial ? " (the last of them in part)" : ""}, ${body.length - kept} left out to fit ${limits}. \`${command}\` prints the whole record.`;
  const whole = [printable(intro), ...body.map(quoted)];
  if (body.length <= BOOT_HANDOVER_LINES && (!budget || sizeOf(whole, budget.counts) <= room)) return whole;
  const counts = budget?.counts ?? "utf16";
  const left = budget
    ? room - sizeOf([intro.replace("quoted whole", "quoted in part"), notice(body.length, true)], counts) - 1
    : Number.POSITIVE_INFINITY;
  const head =
    left > 0
      ? headThatFits(body.slice(0, BOOT_HANDOVER_LINES), left, counts, quoted)
      : { shown: [], kept: 0, partial: false };
  return [printable(intro.replace("quoted whole", "quoted in part")), ...head.shown, notice(head.kept, head.partial)];
}

/**
 * The boot, within `budget` (the fresh-window channel's, from the providers table): its briefing
 * gets at most a third of it, the agent's own handover the rest, each cut as the briefing is cut.
 */
export function boot(f: Facts, window: BootWindow, budget?: Budget): string[] {
  const top = [
    `# majordomus fresh window ${window.id}`,
    "",
    `Window :${window.ordinal - 1} of this episode ended (${window.trigger === "auto" ? "Claude Code's context window was full" : "a fresh window was asked for"}). majordomus replaced the client's summary of it with this boot, built from the repository's own records, not from the conversation: the briefing, then the newest handover an agent or a person wrote. Git is the truth where they disagree.`,
    "",
  ];
  const tail = [
    "",
    "Resume from the Next Action above. The earlier conversation is not here; `majordomus context` gives the whole picture, and majordomus's MCP history tools (`history_windows`, `history_read`) read the client's own transcript of it on demand.",
    "When this window fills too, write your handover with `majordomus handover` first, then end your turn.",
  ];
  const briefed = briefing(
    f,
    budget ? { ...budget, chars: Math.floor(budget.chars * BRIEFING_SHARE) } : undefined,
  ).lines;
  const middle = ["", "## The handover to resume from", ""];
  const used = budget ? sizeOf([...top, ...briefed, ...middle, ...tail], budget.counts) + 2 : 0;
  return [
    ...top,
    ...briefed,
    ...middle,
    ...ownHandover(f, budget, budget ? budget.chars - used : Number.POSITIVE_INFINITY),
    ...tail,
  ];
}
