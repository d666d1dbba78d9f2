/**
 * The boot of a fresh window: what the agent reads in place of Claude Code's summary when the
 * mod answers a compaction. The briefing for this checkout (bounded as always), then the agent's
 * own newest handover quoted whole with its labels, or a plain statement that there is none. Built
 * from the records alone: never a line of the conversation it replaces. A pure view over the facts.
 */
import type { Facts, Need } from "../facts/facts.ts";
import { BRIEFING_NEEDS, briefing, quoted } from "./briefing.ts";

export const BOOT_NEEDS = BRIEFING_NEEDS satisfies readonly Need[];

/** The longest handover body quoted whole; a longer one is cut, and says where the rest is. */
export const BOOT_HANDOVER_LINES = 120;

/** The window the boot opens: `<episode>:<ordinal>`. */
export type BootWindow = { id: string; ordinal: number; trigger?: string };

function ownHandover(f: Facts): string[] {
  const v = f.handover.view;
  if (!v || v.how !== "authored") {
    return [
      "No handover written by an agent or a person is on record for this worktree and branch, so there is none to quote:",
      "what the briefing above shows is all majordomus knows. Write one with `majordomus handover` before this window fills.",
    ];
  }
  if (v.history) {
    return [`The newest handover an agent wrote, ${v.path}, is ${v.freshness} (${v.freshness_reason}): history, not instruction; it is not quoted. Decide from the repository as it stands.`];
  }
  const body = v.body.replace(/\s+$/, "").split("\n");
  const shown = body.slice(0, BOOT_HANDOVER_LINES);
  const lines = [
    `The agent's own handover, ${v.path} (${v.how}, ${v.match}, ${v.divergence}, ${v.freshness}, ${v.age ? `${v.age} old` : "age unknown"}${v.session !== "none" ? `, written in episode ${v.session}` : ""}), quoted whole, in its author's own words:`,
    ...shown.map(quoted),
  ];
  if (body.length > shown.length) lines.push(`(${body.length - shown.length} more line(s) in ${v.path}.)`);
  return lines;
}

export function boot(f: Facts, window: BootWindow): string[] {
  return [
    `# majordomus fresh window ${window.id}`,
    "",
    `Window :${window.ordinal - 1} of this episode ended (${window.trigger === "auto" ? "Claude Code's context window was full" : "a fresh window was asked for"}). majordomus replaced the client's summary of it with this boot, built from the repository's own records, not from the conversation: the briefing, then the newest handover an agent or a person wrote. Git is the truth where they disagree.`,
    "",
    ...briefing(f).lines,
    "",
    "## The handover to resume from",
    "",
    ...ownHandover(f),
    "",
    "Resume from the Next Action above. The earlier conversation is not here; `majordomus context` gives the whole picture, and majordomus's MCP history tools (`history_windows`, `history_read`) read the client's own transcript of it on demand.",
    "When this window fills too, write your handover with `majordomus handover` first, then end your turn.",
  ];
}
