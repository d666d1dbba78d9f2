/**
 * The shims a client's hooks run: tiny POSIX sh scripts that find the repository from their own location and exec the
 * binary. No binary means exit 0: a clone without majordomus must not break its client.
 */
import type { Hooks, Provider } from "../providers/index.ts";
import { HOOKS, clientRow, hookArgs, type HookEvent } from "../providers/hooks.ts";
import { TRACKED_ARGS } from "../repo/tracked.ts";
import { NO_PROGRAMS } from "../repo/git.ts";
import { dialectOf } from "./dialects.ts";
import { readAsset } from "../assets/index.ts";
import { answered } from "../providers/hooks.ts";

export { commandsIn } from "./dialects.ts";

export const MARKER = "Written by `majordomus capture install`";

export const STATUS_ANSWER_DIR = ".ai/local/cache";
export const STATUS_ANSWER_PREFIX = "git-status.";

/**
 * The binary `capture install` was run with, recorded in the local half: the one every shim runs. Never one inside
 * the repository (wiring/binary.ts); the shims refuse a record naming one.
 */
export const BINARY_RECORD = ".ai/local/state/binary";

/**
 * The start shim runs `git status` and `git ls-files` in the background while the binary starts, and says where their
 * answers go.
 */
function statusPrefetch(): string {
  const quiet = "LC_ALL=C GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0";
  // No hook and no fsmonitor: nothing the repository's config names runs.
  const programs = NO_PROGRAMS.join(" ");
  return `# The briefing needs \`git status\` and \`git ls-files\`: start them now, while the binary
# starts, and say where their answers go.
if [ -d "$root/${STATUS_ANSWER_DIR}" ]; then
  answer="$root/${STATUS_ANSWER_DIR}/${STATUS_ANSWER_PREFIX}$$"
  (${quiet} git ${programs} status --porcelain=v1 -z --untracked-files=all >"$answer" 2>/dev/null; \\
    echo $? >"$answer.rc") </dev/null >/dev/null 2>&1 &
  # And what git tracks of the local half (a force-added file there is a stranger's): its answer
  # beside the first.
  (${quiet} git ${programs} ${TRACKED_ARGS.join(" ")} >"$answer.tracked" 2>/dev/null; \\
    echo $? >"$answer.tracked.rc") </dev/null >/dev/null 2>&1 &
  set -- --git-status "$answer" --git-tracked
fi
`;
}

export function engineEnv(event: HookEvent): Record<string, string> {
  return Object.fromEntries(HOOKS[event].engine.split(" ").map((kv) => kv.split("=") as [string, string]));
}

/** What every shim does after finding the repository: a PATH without the repository's folders, then the binary. */
const FIND_BINARY = `# Programs come from the person's PATH, never from this repository: empty and relative entries,
# and folders inside it, are dropped, for this shim, the binary and everything they start.
safe=
IFS=:
set -f
for dir in $PATH; do
  case $dir in
    /*) case $dir/ in "$root"/*) ;; *) safe=\${safe:+$safe:}$dir ;; esac ;;
  esac
done
PATH=$safe
export PATH
# The binary \`capture install\` recorded (the one the person ran it with), else the first
# majordomus on that PATH. Never one inside this repository, by its path or through /proc: a
# checkout can rewrite the record and whatever it names there (git overwrites ignored files), so
# that would be the repository's program.
mj=
if [ -f "$root/${BINARY_RECORD}" ] && IFS= read -r bin <"$root/${BINARY_RECORD}"; then
  case $bin in
    "$root"/* | /proc/*)
      echo "majordomus: ${BINARY_RECORD} names a program inside this repository (or under /proc)," \\
        "which no shim runs; run capture install with a majordomus installed outside it" >&2 ;;
    /*) if [ -x "$bin" ]; then mj=$bin; fi ;;
  esac
fi
if [ -z "$mj" ]; then
  for dir in $PATH; do
    if [ -x "$dir/majordomus" ]; then mj=$dir/majordomus; break; fi
  done
fi
set +f
unset IFS
[ -n "$mj" ] || exit 0
set --
`;

const ENGINE_NOTE = (engine: string) =>
  engine.includes("useJIT=0")
    ? "# A hook lives a few milliseconds: compiling its code costs more than it saves, so Bun's JIT is off."
    : "# A hook lives a few milliseconds: Bun's JavaScript JIT tiers are off, its regular-expression JIT\n" +
      "# stays (redaction runs over what was pasted).";

export function shimText(provider: Provider & { hooks: Hooks }, event: HookEvent): string {
  const row = clientRow(provider.hooks, event);
  const args = hookArgs(provider, event).join(" ");
  const up = Array.from({ length: row.shim.split("/").length - 1 }, () => "..").join("/");
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
${FIND_BINARY}${row.startsStatus ? statusPrefetch() : ""}${ENGINE_NOTE(row.engine)}
${row.engine} exec "$mj" ${args} --repo "$root" "$@"
`;
}

/** The entry for one event as the client's hook file holds it, in its dialect. */
export function settingsEntry(provider: Provider & { hooks: Hooks }, event: HookEvent): Record<string, unknown> {
  return dialectOf(provider.hooks).entry(provider, event);
}

/** The files install writes whole and owns by MARKER: each event's shim, and the plugin a client without hooks loads. */
export function wholeFiles(
  provider: Provider & { hooks: Hooks },
): Array<{ rel: string; text: () => string; mode: number }> {
  const plugin = provider.hooks.plugin;
  return [
    ...answered(provider.hooks).map((e) => ({
      rel: provider.hooks.events[e].shim,
      text: () => shimText(provider, e),
      mode: 0o755,
    })),
    ...(plugin ? [{ rel: plugin.target, text: () => readAsset(plugin.source), mode: 0o644 }] : []),
  ];
}
