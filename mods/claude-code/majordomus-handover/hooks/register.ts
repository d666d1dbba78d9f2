// majordomus-handover: asks the agent for a majordomus handover before its context window fills.
// Written by `majordomus capture install` from the majordomus binary's mods/; a changed copy is
// rewritten by the next install, so edit it in the majordomus source, not here.
import type { Register } from "claude-code";

/** Room kept below the auto-compaction threshold for the turn that writes the handover. */
export const HEADROOM_TOKENS = 30_000;
/** Below this share of the line the window counts as new (a compaction or /clear happened). */
export const REARM_SHARE = 0.5;
/** What the client reserves for output and for the summary (its documented formula). */
const OUTPUT_RESERVE = 20_000;
const SUMMARY_BUFFER = 13_000;
/** The smallest auto-compact window the client accepts. */
const MIN_WINDOW = 100_000;
/** Without any figure to go on: ask at this share of the model's window. */
const FALLBACK_SHARE = 0.7;

export type Threshold = { tokens: number; source: string } | { off: true; source: string };

/** `200000`, `200k`, `1m` → tokens; anything else → undefined. */
export function parseTokens(text: string | undefined | null): number | undefined {
  if (!text) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(text);
  if (!m) return undefined;
  const scale = m[2]!.toLowerCase() === "k" ? 1_000 : m[2]!.toLowerCase() === "m" ? 1_000_000 : 1;
  return Math.round(Number(m[1]) * scale);
}

function pctOverride(text: string | undefined | null): number | undefined {
  const p = Number(text);
  return text && Number.isFinite(p) && p > 0 && p <= 100 ? p : undefined;
}

/**
 * The client's auto-compaction threshold: its own figure when it reports one (lowered by a
 * percentage override, which can only lower it), else the documented formula over the smallest
 * configured window, capped at the model's.
 */
export function deriveThreshold(input: {
  clientThreshold?: number;
  autoCompactEnabled?: boolean;
  modelWindow?: number;
  envWindow?: string | null;
  settingsWindow?: unknown;
  pct?: string | null;
  disabled?: string | null;
}): Threshold | undefined {
  if (input.disabled === "1" || input.autoCompactEnabled === false) return { off: true, source: "auto-compaction is off" };
  const pct = pctOverride(input.pct);
  if (typeof input.clientThreshold === "number" && input.clientThreshold > 0) {
    const effective = input.clientThreshold + SUMMARY_BUFFER;
    return { tokens: pct ? Math.min(input.clientThreshold, Math.floor((effective * pct) / 100)) : input.clientThreshold, source: "the client's own threshold" };
  }
  if (!input.modelWindow) return undefined;
  const candidates = [input.modelWindow];
  const fromEnv = parseTokens(input.envWindow);
  if (fromEnv !== undefined) candidates.push(Math.max(fromEnv, MIN_WINDOW));
  const fromSettings = typeof input.settingsWindow === "number" ? input.settingsWindow : parseTokens(typeof input.settingsWindow === "string" ? input.settingsWindow : undefined);
  if (fromSettings !== undefined) candidates.push(Math.max(fromSettings, MIN_WINDOW));
  const window = Math.min(...candidates);
  const effective = window - OUTPUT_RESERVE;
  const threshold = effective - SUMMARY_BUFFER;
  return { tokens: pct ? Math.min(Math.floor((effective * pct) / 100), threshold) : threshold, source: "the client's documented formula" };
}

/** Where to ask: a fixed headroom below the threshold, never below half of it. */
export function lineFor(threshold: number): number {
  return Math.max(threshold - HEADROOM_TOKENS, Math.round(threshold / 2));
}

/** A Bash command that writes a handover (reads and help do not count). */
export function writesHandover(command: string): boolean {
  return /(^|[\s;&|(])majordomus\s+handover\b/.test(command) && !/--(resolve|list|help)\b|\s-h\b/.test(command);
}

export function request(percent: number, tokens: number, threshold: number): string {
  return [
    `Your context window is at ${percent}% (${tokens} tokens; Claude Code compacts it at about ${threshold}). Before that happens, write a majordomus handover now, while there is room for it.`,
    "",
    "1. Read the live state first, not your memory: `git status -sb`, `git log --oneline -8`, `majordomus check`.",
    "2. Pipe a Markdown body with three non-empty sections to `majordomus handover` on stdin:",
    "   `# Objective` (what the work is for), `# Current State` (branch, head commit, uncommitted or unpushed work, anything still running), `# Next Action` (the single first step the next session should take).",
    "   If it is refused because no task is active, add `--no-task`.",
    "3. Durable decisions go to `majordomus decision`, not into the handover.",
    "4. Report the path it prints, then stop: start nothing new in this turn.",
  ].join("\n");
}

export const register: Register = (on) => {
  let asked = false;
  let written = false;
  let threshold: Threshold | undefined;
  let explained = false;
  const supervised = new Map<string, boolean>();

  const rearm = () => {
    asked = false;
    written = false;
    threshold = undefined;
  };

  on("session.measure", async ($, e, next) => {
    const tokens = e.context.tokens;
    if (typeof tokens === "number") {
      if (threshold === undefined) {
        const usage = await $.session.usage({ breakdown: "summary" }).catch(() => undefined);
        const settings = (await $.settings.read().catch(() => undefined)) as { autoCompactWindow?: unknown; autoCompactEnabled?: boolean } | undefined;
        threshold = deriveThreshold({
          clientThreshold: usage?.context.breakdown?.autoCompactThreshold,
          autoCompactEnabled: usage?.context.breakdown?.isAutoCompactEnabled ?? settings?.autoCompactEnabled,
          modelWindow: e.context.window,
          envWindow: await $.env.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW"),
          settingsWindow: settings?.autoCompactWindow,
          pct: await $.env.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"),
          disabled: await $.env.get("DISABLE_AUTO_COMPACT"),
        }) ?? { tokens: Math.round(e.context.window * FALLBACK_SHARE), source: "a fallback share of the model window" };
        if (!explained && "tokens" in threshold && threshold.source.startsWith("a fallback")) {
          explained = true;
          $.ui.log("majordomus-handover: the auto-compaction threshold could not be derived; asking at a share of the model window", { to: "debug" });
        }
      }
      if ("tokens" in threshold) {
        const line = lineFor(threshold.tokens);
        if (tokens < line * REARM_SHARE) rearm();
        else if (!asked && !written && tokens >= line) {
          const root = await $.session.root();
          if (!supervised.has(root)) supervised.set(root, await $.fs.exists(`${root}/.ai/manifest.yaml`));
          if (supervised.get(root)) {
            asked = true;
            const percent = e.context.percent ?? Math.round((tokens / e.context.window) * 100);
            $.ui.toast(`context at ${percent}%: asking for a majordomus handover`);
            void $.prompt.submit({ text: request(percent, tokens, threshold.tokens) });
          }
        }
      }
    }
    return next(e);
  });

  // A compaction or a /clear starts a new window: ask again in it.
  on("session.compact", async ($, e, next) => {
    const result = await next(e);
    rearm();
    return result;
  });
  on("session.end", async ($, e, next) => {
    rearm();
    return next(e);
  });

  // A handover the agent already wrote in this window makes the request unnecessary.
  on("tool.call", { tool: "Bash" }, async ($, e, next) => {
    const result = await next(e);
    if (!result.deny && !result.isError && writesHandover(String((e as { command?: unknown }).command ?? ""))) written = true;
    return result;
  }).catch(($, e, next) => next(e));
};
