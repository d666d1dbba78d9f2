// majordomus-handover: keeps the agent's own account across Claude Code's context windows.
// Written by `majordomus capture install` from the majordomus binary's mods/; a changed copy is
// rewritten by the next install, so edit it in the majordomus source, not here.
//
// In a repository supervised by majordomus (one with `.ai/manifest.yaml`), once per window:
// - past the warning point, the next prompt carries a note that the window is nearly full;
// - past the handover line, it asks the agent for its handover with `majordomus handover`;
// - with the fresh window on (`session.fresh_window`, granted in the checkout's consent file), an
//   automatic compaction is answered with a boot from majordomus (the briefing and the agent's own
//   handover) instead of Claude Code's summary; `/compact` is vetoed (or left to the summary), and
//   `/fresh-window` closes the window out on purpose.
// The binary decides what is on and writes every record; this module only asks it and answers the client.
import type { EngineInterface, Register, SessionMessage } from "claude-code";

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
/** The longest the binary may take to answer (it writes a checkpoint and reads git). */
const BINARY_TIMEOUT_MS = 20_000;

/** The margins below the threshold, each overridable in Claude Code's settings under `majordomus`. */
export const DEFAULT_MARGINS = {
  resetMarginTokens: 8_192,
  warningRunwayTokens: 16_384,
  handoverHeadroomTokens: HEADROOM_TOKENS,
} as const;
export type Margins = { -readonly [K in keyof typeof DEFAULT_MARGINS]: number };
const MARGIN_KEYS = Object.keys(DEFAULT_MARGINS) as Array<keyof Margins>;
const MAX_MARGIN = 1_000_000;

export type Threshold = { tokens: number; source: string; autoOff?: true };

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

/** An environment switch as the client reads one: set to anything but empty, 0 or false. */
export function envOn(value: string | undefined | null): boolean {
  return value !== undefined && value !== null && value !== "" && !/^(0|false|no|off)$/i.test(value);
}

/**
 * The point the client compacts at: its own figure when it reports one (lowered by a percentage
 * override, which can only lower it), else the documented formula over the smallest configured
 * window, capped at the model's. With automatic compaction off, the window less the output
 * reserve: the margins below it still apply.
 */
export function deriveThreshold(input: {
  clientThreshold?: unknown;
  autoCompactEnabled?: unknown;
  modelWindow?: number;
  envWindow?: string | null;
  settingsWindow?: unknown;
  pct?: string | null;
  disabled?: string | null;
}): Threshold | undefined {
  const off = envOn(input.disabled) || input.autoCompactEnabled === false;
  const pct = pctOverride(input.pct);
  if (
    !off &&
    typeof input.clientThreshold === "number" &&
    Number.isFinite(input.clientThreshold) &&
    input.clientThreshold > 0
  ) {
    const effective = input.clientThreshold + SUMMARY_BUFFER;
    return {
      tokens: pct ? Math.min(input.clientThreshold, Math.floor((effective * pct) / 100)) : input.clientThreshold,
      source: "the client's own threshold",
    };
  }
  if (!input.modelWindow) return undefined;
  const candidates = [input.modelWindow];
  const fromEnv = parseTokens(input.envWindow);
  if (fromEnv !== undefined) candidates.push(Math.max(fromEnv, MIN_WINDOW));
  const fromSettings =
    typeof input.settingsWindow === "number"
      ? input.settingsWindow
      : parseTokens(typeof input.settingsWindow === "string" ? input.settingsWindow : undefined);
  if (fromSettings !== undefined) candidates.push(Math.max(fromSettings, MIN_WINDOW));
  const window = Math.min(...candidates);
  const effective = window - OUTPUT_RESERVE;
  if (off)
    return { tokens: effective, source: "auto-compaction is off: the window less the output reserve", autoOff: true };
  const threshold = effective - SUMMARY_BUFFER;
  return {
    tokens: pct ? Math.min(Math.floor((effective * pct) / 100), threshold) : threshold,
    source: "the client's documented formula",
  };
}

/** The margins from the `majordomus` object of Claude Code's merged settings; each value that is not a whole number of tokens is ignored, with why. */
export function readMargins(settings: unknown): { margins: Margins; ignored: string[] } {
  const margins: Margins = { ...DEFAULT_MARGINS };
  const ignored: string[] = [];
  const block =
    settings !== null && typeof settings === "object" ? (settings as Record<string, unknown>).majordomus : undefined;
  if (block === undefined) return { margins, ignored };
  if (block === null || typeof block !== "object" || Array.isArray(block))
    return {
      margins,
      ignored: [`settings key "majordomus" must be an object of ${MARGIN_KEYS.join(", ")}; it is ignored`],
    };
  for (const [key, value] of Object.entries(block as Record<string, unknown>)) {
    if (!(MARGIN_KEYS as string[]).includes(key))
      ignored.push(`majordomus.${key} is not read (the keys are ${MARGIN_KEYS.join(", ")})`);
    else if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > MAX_MARGIN)
      ignored.push(
        `majordomus.${key} must be a whole number of tokens from 0 to ${MAX_MARGIN}, not ${JSON.stringify(value)}; the default ${DEFAULT_MARGINS[key as keyof Margins]} stands`,
      );
    else margins[key as keyof Margins] = value;
  }
  return { margins, ignored };
}

/** The points of one window, lowest first: the warning, the handover request, the reset (fresh window). */
export type Points = { warning: number; line: number; reset: number; threshold: number };

export function pointsFor(threshold: number, margins: Margins = DEFAULT_MARGINS): Points {
  const line = Math.max(threshold - margins.handoverHeadroomTokens, Math.round(threshold / 2));
  const warning = Math.max(line - margins.warningRunwayTokens, Math.round(line / 2));
  const reset = Math.max(threshold - margins.resetMarginTokens, line);
  return { warning, line, reset, threshold };
}

/** Where to ask: a fixed headroom below the threshold, never below half of it. */
export function lineFor(threshold: number): number {
  return pointsFor(threshold).line;
}

/** A Bash command that writes a handover (reads and help do not count). */
export function writesHandover(command: string): boolean {
  return /(^|[\s;&|(])majordomus\s+handover\b/.test(command) && !/--(resolve|list|help)\b|\s-h\b/.test(command);
}

/** The share of the way to the threshold: one figure, against the window the threshold was derived from. */
export const wayThere = (tokens: number, threshold: number) => Math.min(100, Math.round((100 * tokens) / threshold));

export function request(tokens: number, threshold: number): string {
  return [
    `Your context window holds ${tokens} tokens; Claude Code compacts it at about ${threshold} (${wayThere(tokens, threshold)}% of the way there). Before that happens, write a majordomus handover now, while there is room for it.`,
    "",
    "1. Read the live state first, not your memory: `git status -sb`, `git log --oneline -8`, `majordomus check`.",
    "2. Pipe a Markdown body with three non-empty sections to `majordomus handover` on stdin:",
    "   `# Objective` (what the work is for), `# Current State` (branch, head commit, uncommitted or unpushed work, anything still running), `# Next Action` (the single first step the next session should take).",
    "   If it is refused because no task is active, add `--no-task`.",
    "3. Durable decisions go to `majordomus decision`, not into the handover.",
    "4. Report the path it prints, then stop: start nothing new in this turn.",
  ].join("\n");
}

/** The note once per window, and the close-out turn of `/fresh-window`: write the handover, then end the turn. */
export function warning(fresh: boolean, tokens?: number, threshold?: number): string {
  const fill =
    tokens !== undefined && threshold !== undefined
      ? ` (${tokens} tokens; it is compacted at about ${threshold}, ${wayThere(tokens, threshold)}% of the way there)`
      : "";
  return [
    `majordomus: this context window is nearly full${fill}.`,
    "Write your handover now: pipe `# Objective`, `# Current State` and `# Next Action` (the single first step for whoever continues) to `majordomus handover` (add `--no-task` if no task is active).",
    fresh
      ? "Then end your turn: the window restarts from the majordomus briefing and your handover, not from a summary."
      : "Then end your turn and start nothing new: Claude Code will compact this window soon.",
  ].join("\n");
}

export const VETO =
  "majordomus: /compact is answered by the fresh window here; run /fresh-window (the agent writes its handover, then the window restarts from it)";

export const REFUSALS = {
  disabled: "majordomus: /fresh-window cannot run: compaction is switched off in this session (DISABLE_COMPACT)",
  headless:
    "majordomus: /fresh-window needs the interactive UI: in a headless (-p / SDK) session Claude Code cannot compact from a plugin",
  unsupervised: "majordomus: /fresh-window: this repository is not supervised by majordomus (no .ai/manifest.yaml)",
} as const;

/** What `majordomus capture window` answers (share/schemas/cli/window.schema.json). */
export type WindowAnswer = {
  schema: "majordomus/window/v1";
  ok: boolean;
  why?: string;
  fresh_window: { on: boolean; asked: boolean; why?: string };
  manual: "veto" | "summary";
  window: number | null;
  window_id: string | null;
  boot?: string;
};

export function parseAnswer(stdout: string): WindowAnswer {
  const last = stdout.trim().split("\n").at(-1) ?? "";
  const doc = JSON.parse(last) as Partial<WindowAnswer> | null;
  if (
    !doc ||
    doc.schema !== "majordomus/window/v1" ||
    typeof doc.ok !== "boolean" ||
    typeof doc.fresh_window?.on !== "boolean"
  )
    throw new Error(`not a majordomus/window/v1 answer: ${last.slice(0, 120)}`);
  return doc as WindowAnswer;
}

/**
 * What a boot keeps of the conversation it replaces: the current prompt of an automatic compaction
 * that runs mid-turn (it would otherwise be dropped), with its handle so it stands as the client has
 * it. The turn's tool calls so far are not kept: the boot and the prompt restart it.
 */
export function currentPrompt(messages: readonly SessionMessage[]): SessionMessage | undefined {
  // Past the tool calls and results of the running turn, back to the prompt that started it.
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && (m.toolResults?.length ?? 0) === 0 && m.text.trim() !== "") return m;
  }
  return undefined;
}

/** Where the shims find the binary, in their order: the repository's own copies, then PATH. */
const BINARIES = ["bin/majordomus", ".majordomus/bin/majordomus"];

/** What the mod keeps: per window (re-armed by a compaction or a /clear), and per session. */
type State = {
  warned: boolean;
  warnPending: boolean;
  asked: boolean;
  written: boolean;
  threshold?: Threshold;
  points?: Points;
  margins: Margins;
  interactive: boolean;
  compactDisabled: boolean;
  status?: Promise<WindowAnswer | undefined>;
  lastTokens?: number;
  busy: boolean;
  /** The boot of the window just opened, reused if the client retries that compaction. */
  pendingBoot?: string;
  /** /fresh-window: waiting for the running turn, the close-out turn submitted, or nothing. */
  closeout: "none" | "after-turn" | "submitted";
  registered: boolean;
  logged: Set<string>;
  supervised: Map<string, boolean>;
};

function rearm(s: State): void {
  s.warned = false;
  s.warnPending = false;
  s.asked = false;
  s.written = false;
  s.threshold = undefined;
  s.points = undefined;
}

/** One debug-log line per distinct text and session. */
function once($: EngineInterface, s: State, text: string): void {
  if (s.logged.has(text)) return;
  s.logged.add(text);
  $.ui.log(`majordomus-handover: ${text}`, { to: "debug" });
}

async function isSupervised($: EngineInterface, s: State): Promise<boolean> {
  const root = await $.session.root();
  if (!s.supervised.has(root)) s.supervised.set(root, await $.fs.exists(`${root}/.ai/manifest.yaml`));
  return s.supervised.get(root) === true;
}

/** `majordomus capture window …` with the client's hook environment (so the episode is this session's). */
async function ask($: EngineInterface, args: string[]): Promise<WindowAnswer> {
  const root = await $.session.root();
  let bin = "majordomus";
  for (const candidate of BINARIES) {
    if (await $.fs.exists(`${root}/${candidate}`)) {
      bin = `${root}/${candidate}`;
      break;
    }
  }
  // As in the shims: a command this short compiles nothing worth the JIT's start.
  const env = { ...(await $.process.hookEnv()), BUN_JSC_useJIT: "0" };
  const run = await $.process.run([bin, "capture", "window", ...args, "--repo", root], {
    env,
    timeoutMs: BINARY_TIMEOUT_MS,
  });
  if (run.exitCode !== 0)
    throw new Error(`majordomus capture window exited ${run.exitCode}: ${run.stderr.trim().split("\n").at(-1) ?? ""}`);
  return parseAnswer(run.stdout);
}

async function askStatus($: EngineInterface, s: State): Promise<WindowAnswer | undefined> {
  if (!(await isSupervised($, s))) return undefined;
  try {
    return await ask($, ["--action", "status"]);
  } catch (err) {
    once($, s, `the fresh window's status could not be read (${(err as Error).message}); it stays off in this session`);
    return undefined;
  }
}

/** What the binary says of the fresh window here, asked once per session (and again after a /clear or a compaction). */
function windowStatus($: EngineInterface, s: State): Promise<WindowAnswer | undefined> {
  s.status ??= askStatus($, s);
  return s.status;
}

async function freshOn($: EngineInterface, s: State): Promise<boolean> {
  return !s.compactDisabled && (await windowStatus($, s))?.fresh_window.on === true;
}

async function deriveFor($: EngineInterface, s: State, window: number): Promise<Threshold> {
  const usage = await $.session.usage({ breakdown: "summary" }).catch(() => undefined);
  const breakdown = usage?.context.breakdown as
    { autoCompactThreshold?: unknown; isAutoCompactEnabled?: unknown } | undefined;
  const settings = (await $.settings.read().catch(() => undefined)) as Record<string, unknown> | undefined;
  const read = readMargins(settings);
  s.margins = read.margins;
  for (const why of read.ignored) once($, s, why);
  const found = deriveThreshold({
    clientThreshold: breakdown?.autoCompactThreshold,
    autoCompactEnabled:
      typeof breakdown?.isAutoCompactEnabled === "boolean"
        ? breakdown.isAutoCompactEnabled
        : settings?.autoCompactEnabled,
    modelWindow: window,
    envWindow: await $.env.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW"),
    settingsWindow: settings?.autoCompactWindow,
    pct: await $.env.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"),
    disabled: await $.env.get("DISABLE_AUTO_COMPACT"),
  });
  if (!found) once($, s, "the auto-compaction threshold could not be derived; asking at a share of the model window");
  return found ?? { tokens: Math.round(window * FALLBACK_SHARE), source: "a fallback share of the model window" };
}

/** The boot for a compaction the fresh window answers: reused on a retry, else asked of the binary (which also checkpoints). */
async function bootFor($: EngineInterface, s: State, trigger: string): Promise<string> {
  if (s.pendingBoot !== undefined) return s.pendingBoot;
  const answer = await ask($, ["--action", "boot", "--trigger", trigger]);
  if (!answer.ok || !answer.boot) throw new Error(answer.why ?? "no boot in the answer");
  s.pendingBoot = answer.boot;
  return answer.boot;
}

async function registerCommand($: EngineInterface, s: State): Promise<void> {
  if (s.registered) return;
  s.registered = true;
  try {
    await $.command.register({
      name: "fresh-window",
      description:
        "Close out this context window: the agent writes its majordomus handover, then the window restarts from it",
      immediate: true,
    });
  } catch (err) {
    once($, s, `/fresh-window could not be registered (${(err as Error).message})`);
  }
}

/** After a turn: the close-out turn /fresh-window waited for, or the reset once the close-out (or the reset point) is reached. */
async function afterTurn($: EngineInterface, s: State, reason: string): Promise<void> {
  if (s.closeout === "after-turn") {
    s.closeout = "submitted";
    void $.prompt.submit({ text: warning(true) });
    return;
  }
  const resetDue =
    s.interactive && s.points !== undefined && s.lastTokens !== undefined && s.lastTokens >= s.points.reset;
  if (s.closeout !== "submitted" && !resetDue) return;
  const wasCloseout = s.closeout === "submitted";
  s.closeout = "none";
  if (wasCloseout && reason !== "answer")
    return once($, s, `the close-out turn ended without an answer (${reason}); the window was not reset`);
  if (!(await freshOn($, s))) return;
  // Compacted from here, at the end of a turn, the client runs this mod's own compaction hook (a timer's would not).
  try {
    await $.session.compact({ instructions: "majordomus fresh window" });
  } catch (err) {
    once($, s, `the window could not be reset (${(err as Error).message})`);
  }
}

async function answerCommand($: EngineInterface, s: State): Promise<{ text: string; exitCode?: number }> {
  if (s.compactDisabled) return { text: REFUSALS.disabled, exitCode: 1 };
  if (!s.interactive) return { text: REFUSALS.headless, exitCode: 1 };
  const state = await windowStatus($, s);
  if (!state) return { text: REFUSALS.unsupervised, exitCode: 1 };
  if (!state.fresh_window.on)
    return {
      text: `majordomus: /fresh-window is off here: ${state.fresh_window.why ?? "the fresh window is not granted"}`,
      exitCode: 1,
    };
  if (s.busy) {
    s.closeout = "after-turn";
    return {
      text: "majordomus: the running turn finishes first; then the agent writes its handover, and the window restarts from it",
    };
  }
  s.closeout = "submitted";
  // A command holds the session: the close-out turn is submitted once it has returned.
  $.clock.after(10, () => void $.prompt.submit({ text: warning(true) }));
  return {
    text: "majordomus: closing out this window: the agent writes its handover, then the window restarts from it",
  };
}

async function measured(
  $: EngineInterface,
  s: State,
  context: { tokens?: number; window: number; percent?: number },
): Promise<void> {
  const tokens = context.tokens;
  if (typeof tokens !== "number") return;
  s.lastTokens = tokens;
  s.threshold ??= await deriveFor($, s, context.window);
  s.points ??= pointsFor(s.threshold.tokens, s.margins);
  if (tokens < s.points.line * REARM_SHARE) return rearm(s);
  if (!(await isSupervised($, s))) return;
  if (!s.warned && tokens >= s.points.warning) s.warnPending = true;
  if (!s.asked && !s.written && tokens >= s.points.line) {
    // The request is this window's one ask: a warning not yet delivered is dropped, none follows.
    s.asked = true;
    s.warned = true;
    s.warnPending = false;
    $.ui.toast(
      `context ${wayThere(tokens, s.threshold.tokens)}% of the way to compaction: asking for a majordomus handover`,
    );
    void $.prompt.submit({ text: request(tokens, s.threshold.tokens) });
  }
}

export const register: Register = (on) => {
  const s: State = {
    warned: false,
    warnPending: false,
    asked: false,
    written: false,
    margins: { ...DEFAULT_MARGINS },
    interactive: false,
    compactDisabled: false,
    busy: false,
    closeout: "none",
    registered: false,
    logged: new Set(),
    supervised: new Map(),
  };

  on("session.start", async ($, e, next) => {
    const started = await next(e);
    s.interactive = e.isInteractive;
    s.compactDisabled = envOn(await $.env.get("DISABLE_COMPACT"));
    if (s.compactDisabled)
      once(
        $,
        s,
        "DISABLE_COMPACT is set: compaction is off in this session, so no fresh window, and /fresh-window cannot run",
      );
    if (await isSupervised($, s)) {
      await registerCommand($, s);
      void windowStatus($, s);
    }
    return started;
  });

  on("session.measure", async ($, e, next) => {
    await measured($, s, e.context);
    return next(e);
  });

  // The warning rides the next prompt (a block added to the first turn's context alone would never reach the model again).
  on("prompt.submit", async ($, e, next) => {
    if (!s.warnPending || s.asked || e.command) return next(e);
    s.warnPending = false;
    s.warned = true;
    const fresh = await freshOn($, s);
    return next({ ...e, context: [...(e.context ?? []), warning(fresh, s.lastTokens, s.threshold?.tokens)] });
  }).catch(($, e, next) => next(e));

  on("turn.start", async ($, e, next) => {
    if (!e.agentId) s.busy = true;
    return next(e);
  });

  on("turn.complete", async ($, e, next) => {
    const result = await next(e);
    if (e.agentId) return result;
    s.busy = false;
    s.pendingBoot = undefined;
    await afterTurn($, s, e.reason);
    return result;
  });

  on("session.compact", async ($, e, next) => {
    // A subagent's window and a precomputed summary are the client's own business.
    if (e.agentId || e.trigger === "precompute") return next(e);
    const fresh = await freshOn($, s);
    const manual = (await windowStatus($, s))?.manual ?? "veto";
    // A new window: its episode ordinal and the fresh window's state are asked again.
    s.status = undefined;
    rearm(s);
    if (!fresh || (e.trigger === "manual" && manual === "summary")) return next(e);
    if (e.trigger === "manual") return { skip: VETO };
    let text: string;
    try {
      // A plugin's own `$.session.compact()` is the `plugin` trigger (the test kit raises it with none).
      text = await bootFor($, s, (e.trigger as string | undefined) ?? "plugin");
    } catch (err) {
      once(
        $,
        s,
        `the fresh window's boot could not be built (${(err as Error).message}); Claude Code's own summary runs`,
      );
      return next(e);
    }
    const messages: SessionMessage[] = [{ role: "user", text, toolUses: [] }];
    const kept = e.trigger === "auto" ? currentPrompt(e.messages) : undefined;
    if (kept) messages.push(kept);
    return { messages };
  }).catch(($, e, next) => next(e));

  on("command.run", { command: "fresh-window" }, async ($) => answerCommand($, s));

  on("session.end", async ($, e, next) => {
    rearm(s);
    // After a /clear the process goes on with a new episode (window 0): ask again when needed.
    s.status = undefined;
    s.pendingBoot = undefined;
    s.closeout = "none";
    return next(e);
  });

  on("tool.call", async ($, e, next) => {
    // The history tools read the main session's transcript: a subagent is refused them.
    if (/^mcp__majordomus__history_/.test(e.tool)) {
      if (e.agentId)
        return {
          deny: "majordomus's history tools read the main session's transcript only; they are refused in a subagent",
        };
      // The server's own environment names the session it was started for, which a resume (-c) replaces: name the current one.
      return next({ ...e, session: await $.session.id() } as typeof e);
    }
    const result = await next(e);
    if (
      e.tool === "Bash" &&
      !result.deny &&
      !result.isError &&
      writesHandover(String((e as { command?: unknown }).command ?? ""))
    )
      s.written = true;
    return result;
  }).catch(($, e, next) => next(e));
};
