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

/** Where the start shim collects `git status` for the binary (inside the git-ignored local half). */
export const STATUS_ANSWER_DIR = ".ai/local/cache";
export const STATUS_ANSWER_PREFIX = "git-status.";

/**
 * The start event's briefing needs `git status`, which costs as much as the binary takes to
 * start. The start shim runs it in the background first (no stdio of the client's held open) and
 * tells the binary where the answer will be; the binary falls back to asking git itself.
 */
function statusPrefetch(): string {
  return `# The briefing needs \`git status\`: start it now, while the binary starts, and say where its answer goes.
if [ -d "$root/${STATUS_ANSWER_DIR}" ]; then
  answer="$root/${STATUS_ANSWER_DIR}/${STATUS_ANSWER_PREFIX}$$"
  (LC_ALL=C GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 git status --porcelain=v1 -z --untracked-files=all >"$answer" 2>/dev/null; echo $? >"$answer.rc") </dev/null >/dev/null 2>&1 &
  set -- --git-status "$answer"
fi
`;
}

/**
 * Measured on the prompt and start hooks: with JavaScriptCore's JIT off they take ~0.87x the time
 * and ~3 MiB less memory (the JIT's compiler threads start and compete for the cores, for code that
 * runs once). Only the hook's own process and what it starts get it; a person's commands keep
 * the JIT. Any other runtime ignores the variable.
 */
export const JIT_OFF = "BUN_JSC_useJIT=0";

export function shimText(provider: Provider & { hooks: Hooks }, event: HookEvent): string {
  const row = provider.hooks.events[event];
  const args = shimCommand(provider, event).join(" ");
  const depth = row.shim.split("/").length - 1;
  const up = Array.from({ length: depth }, () => "..").join("/");
  return `#!/bin/sh
# ${row.event} hook of ${provider.title}: hands the payload on stdin to \`majordomus ${args}\`.
# ${MARKER}; a changed copy is rewritten by the next install.
# The repository is found from this file's own location, not from the client's working directory,
# without starting any other program (this runs on every client event; the start hook alone
# starts \`git status\` in the background, which its briefing needs anyway).
# Every path out of here exits 0 or execs majordomus, which never exits 2 from a hook.
case $0 in */*) here=\${0%/*} ;; *) here=. ;; esac
CDPATH= cd -P -- "$here/${up}" 2>/dev/null || exit 0
root=$PWD
mj=
for bin in "$root/bin/majordomus" "$root/.majordomus/bin/majordomus"; do
  if [ -x "$bin" ]; then mj=$bin; break; fi
done
if [ -z "$mj" ]; then
  if command -v majordomus >/dev/null 2>&1; then mj=majordomus; else exit 0; fi
fi
set --
${event === "start" ? statusPrefetch() : ""}# A hook lives a few milliseconds: compiling its code costs more than it saves, so Bun's JIT is off.
${JIT_OFF} exec "$mj" ${args} --repo "$root" "$@"
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
  const command = provider.hooks.command.replaceAll("{shim}", row.shim);
  const name = provider.hooks.handler_name?.replaceAll("{event}", row.event);
  return { ...(provider.hooks.matcher !== undefined ? { matcher: provider.hooks.matcher } : {}), hooks: [{ ...(name ? { name } : {}), type: "command", command, timeout: row.timeout }] };
}
