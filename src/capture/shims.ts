/**
 * The shims a client's hook configuration names: tiny POSIX sh scripts that find the repository
 * from their own location and exec the majordomus binary. No binary found means exit 0: a
 * repository cloned without majordomus must not break its client.
 */
import type { HookEvent, Hooks, Provider } from "../providers/index.ts";

/** Ownership marker: a file or folder that does not carry it is never touched. */
export const MARKER = "Written by `majordomus capture install`";

export function shimCommand(provider: Provider, event: HookEvent): string[] {
  return event === "prompt" ? ["capture", "prompt", "--provider", provider.id] : ["capture", "session", "--provider", provider.id, "--event", event];
}

export function shimText(provider: Provider & { hooks: Hooks }, event: HookEvent): string {
  const row = provider.hooks.events[event];
  const args = shimCommand(provider, event).join(" ");
  const depth = row.shim.split("/").length - 1;
  const up = Array.from({ length: depth }, () => "..").join("/");
  return `#!/bin/sh
# ${row.event} hook of ${provider.title}: hands the payload on stdin to \`majordomus ${args}\`.
# ${MARKER}; a changed copy is rewritten by the next install.
# The repository is found from this file's own location, not from the client's working directory,
# without starting any other program (this runs on every client event).
# Every path out of here exits 0 or execs majordomus, which never exits 2 from a hook.
case $0 in */*) here=\${0%/*} ;; *) here=. ;; esac
CDPATH= cd -P -- "$here/${up}" 2>/dev/null || exit 0
root=$PWD
for bin in "$root/bin/majordomus" "$root/.majordomus/bin/majordomus"; do
  if [ -x "$bin" ]; then exec "$bin" ${args} --repo "$root"; fi
done
if command -v majordomus >/dev/null 2>&1; then exec majordomus ${args} --repo "$root"; fi
exit 0
`;
}

/** Every command a settings file's hooks run for `event` (the shape Claude Code reads). */
export function commandsIn(settings: unknown, event: string): string[] {
  const groups = (settings as { hooks?: Record<string, unknown> })?.hooks?.[event];
  if (!Array.isArray(groups)) return [];
  return groups.flatMap((g) => (Array.isArray((g as { hooks?: unknown })?.hooks) ? (g as { hooks: Array<{ command?: unknown }> }).hooks.map((h) => String(h.command ?? "")) : []));
}

/** The hook configuration entry for one event, as the client's settings file holds it. */
export function settingsEntry(provider: Provider & { hooks: Hooks }, event: HookEvent): Record<string, unknown> {
  const row = provider.hooks.events[event];
  return { matcher: "", hooks: [{ type: "command", command: `"$CLAUDE_PROJECT_DIR"/${row.shim}`, timeout: row.timeout }] };
}
