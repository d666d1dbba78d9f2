/**
 * The hooks table: one row per client event majordomus answers, saying what the shim runs and with which engine
 * options, whether it starts `git status`, which budget bounds the answer, and what it gathers. The client's side
 * (event name, shim path, timeout) is in share/providers.yaml; shims, settings entries and capture status derive from
 * both.
 */

export const HOOK_EVENTS = ["prompt", "start", "compact", "end", "limit"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export type Channel = "start" | "prompt" | "boot";
export type EventRow = { event: string; shim: string; timeout: number };

/**
 * Session hooks run without the JIT: their code runs once, and its compiler threads compete for the cores (0.87x the
 * time). The prompt hook keeps the regular-expression JIT for redaction (a 64 KB pasted log 94 -> 22 ms); the same
 * options made start and compact slower.
 */
const JIT_OFF = "BUN_JSC_useJIT=0";

export type HookRow = {
  aspect: "prompt" | "session";
  command: "prompt" | "session";
  engine: string;
  startsStatus: boolean;
  channel?: Channel;
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
      "the payload's prompt, the open episode, the notices of sessions that opened beside it, " +
      "the claims left by a dead closer",
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
  // Only for a client that says when an API error ended its turn (a usage or rate limit): the session stays open.
  limit: {
    aspect: "session",
    command: "session",
    engine: JIT_OFF,
    startsStatus: false,
    gathers: "the payload's error, the episode, the checkpoint's facts",
    plan: "mark the episode stopped at its usage limit (when the error is one); a derived checkpoint at once",
  },
};

/** The events a client's table row answers: every one but `limit`, which only some clients fire. */
export const answered = (hooks: { events: Partial<Record<HookEvent, EventRow>> }): HookEvent[] =>
  HOOK_EVENTS.filter((e) => hooks.events[e] !== undefined);

export function eventsAnsweredBy(command: HookRow["command"]): HookEvent[] {
  return HOOK_EVENTS.filter((e) => HOOKS[e].command === command);
}

export function eventsOf(aspect: HookRow["aspect"]): HookEvent[] {
  return HOOK_EVENTS.filter((e) => HOOKS[e].aspect === aspect);
}

export function hookArgs(provider: { id: string }, event: HookEvent): string[] {
  const row = HOOKS[event];
  return ["capture", row.command, "--provider", provider.id, ...(row.command === "session" ? ["--event", event] : [])];
}

export function clientRow(hooks: { events: Record<HookEvent, EventRow> }, event: HookEvent): HookRow & EventRow {
  return { ...HOOKS[event], ...hooks.events[event] };
}
