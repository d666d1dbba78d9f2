/** A hook call: the provider, the event and the ids its payload names. */
import { pick, type HookEvent, type Hooks, type Provider } from "../providers/index.ts";
import { cleanId, type Payload } from "./payload.ts";

export type SessionEvent = Exclude<HookEvent, "prompt">;

export type HookCall = {
  provider: Provider & { hooks: Hooks };
  event: SessionEvent;
  payload: Payload;
  providerSession?: string;
  source?: string;
  reason?: string;
  transcript?: string;
};

export function transcriptPath(value: unknown): string | undefined {
  if (
    typeof value !== "string" ||
    value.length > 4096 ||
    !/^(\/|[A-Za-z]:[\\/])/.test(value) ||
    /[\u0000-\u001f\u007f]/.test(value)
  )
    return undefined;
  return value;
}

export function payloadSession(provider: Provider & { hooks: Hooks }, payload: Payload): string | undefined {
  return cleanId(pick(payload.data, provider.hooks.keys.session));
}

export function describeHookCall(
  provider: Provider & { hooks: Hooks },
  event: SessionEvent,
  payload: Payload,
): HookCall {
  const keys = provider.hooks.keys;
  const id = payloadSession(provider, payload);
  return {
    provider,
    event,
    payload,
    // No usable session id: no episode can be told apart, so none is opened, closed or written to.
    providerSession: id,
    source: cleanId(pick(payload.data, keys.source)),
    reason: cleanId(pick(payload.data, keys.reason)),
    transcript: keys.transcript ? transcriptPath(pick(payload.data, keys.transcript)) : undefined,
  };
}

export const BRIEFING_ENVELOPES: Record<NonNullable<Hooks["briefing"]>, (text: string, event: string) => string> = {
  plain: (text) => text,
  additional_context: (text, event) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }),
};

export function envelope(
  provider: Provider & { hooks: Hooks },
  text: string,
  on: "start" | "prompt" = "start",
): string {
  return BRIEFING_ENVELOPES[provider.hooks.briefing ?? "plain"](text, provider.hooks.events[on].event);
}

/** What a client puts before the person's prompt, removed before archiving. */
export const PROMPT_PREFIXES: Record<NonNullable<Hooks["prompt_prefix"]>, (prompt: string) => string> = {
  hook_context: (prompt) => prompt.replace(/^(?:\s*<hook_context>[\s\S]*?<\/hook_context>)+\s*/, ""),
};

export function personsPrompt(provider: Provider & { hooks: Hooks }, prompt: string): string {
  return provider.hooks.prompt_prefix ? PROMPT_PREFIXES[provider.hooks.prompt_prefix](prompt) : prompt;
}
