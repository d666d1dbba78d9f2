/**
 * How a client's hook file holds an event's handlers, one row per dialect: the entry `capture install` writes, the
 * commands an entry runs (what `capture status` looks for), the entry with ours taken out (what `capture uninstall`
 * leaves), and what a file of our own holds besides its hooks. Claude Code, Codex and Gemini nest handlers under a
 * matcher (`nested`); a client whose entries are the handlers themselves, with a command per shell, is `flat`; a
 * file our own plugin reads for a client without command hooks (opencode) is `plugin`.
 */
import type { HookEvent, Hooks, Provider } from "../providers/index.ts";

export type Dialect = {
  entry(provider: Provider & { hooks: Hooks }, event: HookEvent): Record<string, unknown>;
  commands(entry: unknown): string[];
  /** The entry without the handlers `ours` names: what is left (undefined when nothing is), and how many went. */
  without(entry: unknown, ours: (command: string) => boolean): { kept: unknown; removed: number };
  skeleton: Record<string, unknown>;
  /** The hook file is majordomus's own (Copilot's `.github/hooks/majordomus.json`): nothing but our entries in it. */
  ownFile?: boolean;
};

const commandOf = (provider: Provider & { hooks: Hooks }, event: HookEvent, template = provider.hooks.command) =>
  template.replaceAll("{shim}", provider.hooks.events[event].shim);

const text = (v: unknown) => (typeof v === "string" ? v : "");

const nested: Dialect = {
  entry(provider, event) {
    const row = provider.hooks.events[event];
    const name = provider.hooks.handler_name?.replaceAll("{event}", row.event);
    const handler = {
      ...(name ? { name } : {}),
      type: "command",
      command: commandOf(provider, event),
      timeout: row.timeout,
    };
    return { ...(provider.hooks.matcher !== undefined ? { matcher: provider.hooks.matcher } : {}), hooks: [handler] };
  },
  commands(entry) {
    const list = (entry as { hooks?: unknown })?.hooks;
    return Array.isArray(list) ? list.map((h) => text((h as { command?: unknown })?.command)) : [];
  },
  without(entry, ours) {
    const list = (entry as { hooks?: unknown })?.hooks;
    if (!Array.isArray(list)) return { kept: entry, removed: 0 };
    const rest = list.filter((h) => !ours(text((h as { command?: unknown })?.command)));
    const removed = list.length - rest.length;
    const kept = removed === 0 ? entry : rest.length === 0 ? undefined : { ...(entry as object), hooks: rest };
    return { kept, removed };
  },
  skeleton: {},
};

const flat: Dialect = {
  entry(provider, event) {
    return {
      type: "command",
      bash: commandOf(provider, event),
      powershell: commandOf(provider, event, provider.hooks.powershell),
      timeoutSec: provider.hooks.events[event].timeout,
    };
  },
  commands(entry) {
    const e = entry as { bash?: unknown; powershell?: unknown; command?: unknown } | null;
    return [e?.bash, e?.powershell, e?.command].map(text).filter((c) => c !== "");
  },
  without(entry, ours) {
    const mine = flat.commands(entry).some(ours);
    return { kept: mine ? undefined : entry, removed: mine ? 1 : 0 };
  },
  skeleton: { version: 1 },
  ownFile: true,
};

/** A hook file only our plugin reads (opencode has no command hooks): one command per handler. */
const plugin: Dialect = {
  entry(provider, event) {
    return { type: "command", command: commandOf(provider, event), timeout: provider.hooks.events[event].timeout };
  },
  commands: (entry) => flat.commands(entry),
  without: (entry, ours) => flat.without(entry, ours),
  skeleton: { version: 1 },
  ownFile: true,
};

export const DIALECTS = { nested, flat, plugin } as const;

export const dialectOf = (hooks: Hooks): Dialect => DIALECTS[hooks.dialect ?? "nested"];

/** Every command a hook file's entries run for `event` (the client's event name). */
export function commandsIn(settings: unknown, event: string, dialect: Dialect = nested): string[] {
  const entries = (settings as { hooks?: Record<string, unknown> })?.hooks?.[event];
  return Array.isArray(entries) ? entries.flatMap((e) => dialect.commands(e)) : [];
}
