/** A hook call: the provider, the event and the ids its payload names. */
import { pick, type HookEvent, type Hooks, type Provider } from "../providers/index.ts";
import { cleanId, type Payload } from "./payload.ts";
import { homedir } from "node:os";
import { join } from "node:path";
import { env } from "../lib/env.ts";

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

/** Where a client keeps a session's transcript when its payload does not say (Copilot's session state). */
export function transcriptFile(hooks: Hooks, session: string | undefined): string | undefined {
  const at = hooks.transcript_file;
  if (!at || !session || !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(session)) return undefined;
  const home = env(at.home_env) ?? join(env("HOME") ?? homedir(), at.home);
  return transcriptPath(join(home, at.path.replaceAll("{session}", session)));
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
    // A turn's stop gives its error as its reason.
    reason: cleanId(pick(payload.data, event === "limit" ? (keys.error ?? []) : keys.reason)),
    transcript:
      (keys.transcript ? transcriptPath(pick(payload.data, keys.transcript)) : undefined) ??
      transcriptFile(provider.hooks, id),
  };
}

export const BRIEFING_ENVELOPES: Record<NonNullable<Hooks["briefing"]>, (text: string, event: string) => string> = {
  plain: (text) => text,
  additional_context: (text, event) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }),
  top_level_context: (text) => JSON.stringify({ additionalContext: text }),
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
