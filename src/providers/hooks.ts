/**
 * The hooks table: one row per client event majordomus answers, the prompt a row like the rest.
 * A row says, on majordomus's side, what the shim runs and with which engine options, whether the
 * shim starts `git status` for the binary, which budget bounds what the hook hands the model, what
 * it gathers and which plan it runs. The client's side of each row (its event name, our shim's
 * path, the timeout) is the provider's `hooks.events[event]` in share/providers.yaml. The shims,
 * the hook commands' events, the settings entries and capture status are derived from here.
 */

export const HOOK_EVENTS = ["prompt", "start", "compact", "end"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The channels majordomus hands a model text on. */
export type Channel = "start" | "prompt" | "boot";
/** The client's side of a row: its event name, our shim's path from the repository root, the timeout (in the client's unit). */
export type EventRow = { event: string; shim: string; timeout: number };

/**
 * The engine options each hook's process gets, a column of the table below (any other runtime ignores them).
 * Session hooks run with JavaScriptCore's JIT off: their code runs once, and the JIT's compiler
 * threads compete for the cores (~0.87x the time, ~3 MiB less). `useJIT=0` also turns off the
 * regular-expression JIT, and the prompt hook runs every redaction rule over what the person pasted:
 * there only the JavaScript tiers above the interpreter are off, and regular expressions are
 * compiled. Measured through the binary (median of 10): a 64 KB pasted log 94 -> 22 ms, a prompt
 * with a URL and a path 19 -> 19 ms, "hello" 11 -> 12 ms; the same options made start 1.11x and
 * compact 1.08x slower, so they keep the JIT off. Only the hook's own process and what it starts
 * get them; a person's commands keep the JIT.
 */
const JIT_OFF = "BUN_JSC_useJIT=0";

export type HookRow = {
  /** The capture aspect it belongs to (what `capture install --only` and `capture status` name). */
  aspect: "prompt" | "session";
  /** The hook command that answers it: `majordomus capture <command> --provider <id>` (a session event adds `--event <event>`). */
  command: "prompt" | "session";
  /** Engine options the shim's exec gets (any other runtime ignores them). */
  engine: string;
  /** The shim starts `git status` in the background and names its answer file: the briefing needs it. */
  startsStatus: boolean;
  /** The channel whose budget (providers.yaml `budgets`) bounds what this hook hands the model; none: it hands it nothing. */
  channel?: Channel;
  /** What the answer reads, and what it writes (the plan it runs). */
  gathers: string;
  plan: string;
};

export const HOOKS: Record<HookEvent, HookRow> = {
  prompt: {
    aspect: "prompt",
    command: "prompt",
    engine: "BUN_JSC_useBaselineJIT=0 BUN_JSC_useDFGJIT=0",
    startsStatus: false,
    channel: "prompt",
    gathers:
      "the payload's prompt, the open episode, the notices of sessions that opened beside it, the claims left by a dead closer",
    plan: "archive the redacted prompt; hand the model the notices, once; keep a claimed close's promise",
  },
  start: {
    aspect: "session",
    command: "session",
    engine: JIT_OFF,
    startsStatus: true,
    channel: "start",
    gathers: "the briefing's facts: position, policy, git status (bounded by session.git_deadline_ms), task, records",
    plan: "open (or resume) the episode, answer the bounded briefing, hand the working context to a worker",
  },
  compact: {
    aspect: "session",
    command: "session",
    engine: JIT_OFF,
    startsStatus: false,
    gathers: "the checkpoint's facts: task, git since it started, open questions",
    plan: "a derived checkpoint (handed to a worker)",
  },
  end: {
    aspect: "session",
    command: "session",
    engine: JIT_OFF,
    startsStatus: false,
    gathers: "the episode, its ledger window, the handover's facts (lifecycle/finish.ts)",
    plan: "claim the close; derived checkpoint, continuation record, closed record (lifecycle/close-plan.ts)",
  },
};

/** The events a hook command answers (`capture session --event` takes these). */
export function eventsAnsweredBy(command: HookRow["command"]): HookEvent[] {
  return HOOK_EVENTS.filter((e) => HOOKS[e].command === command);
}

/** The events of one capture aspect. */
export function eventsOf(aspect: HookRow["aspect"]): HookEvent[] {
  return HOOK_EVENTS.filter((e) => HOOKS[e].aspect === aspect);
}

/** The words after `majordomus` that a shim for this client's event runs. */
export function hookArgs(provider: { id: string }, event: HookEvent): string[] {
  const row = HOOKS[event];
  return ["capture", row.command, "--provider", provider.id, ...(row.command === "session" ? ["--event", event] : [])];
}

/** One row joined with the client's side of it: its event name, our shim's path, the timeout. */
export function clientRow(hooks: { events: Record<HookEvent, EventRow> }, event: HookEvent): HookRow & EventRow {
  return { ...HOOKS[event], ...hooks.events[event] };
}
