/**
 * The commands a client's hooks run. They never exit 2 (to the client a 2 means "refuse this
 * prompt" or "block this event") and log only warnings unless MAJORDOMUS_LOG says otherwise.
 * Imports nothing: the entry point asks this before anything else loads.
 */
const HOOK_COMMANDS: ReadonlySet<string> = new Set(["capture session", "capture prompt", "capture work", "capture window"]);

export function isHookCommand(argv: readonly string[]): boolean {
  return HOOK_COMMANDS.has(argv.filter((a) => !a.startsWith("-")).slice(0, 2).join(" "));
}
