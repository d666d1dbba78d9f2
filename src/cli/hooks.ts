/**
 * The commands a client's hooks run. They never exit 2 (to the client a 2 means "refuse this prompt" or "block this
 * event") and log only warnings unless MAJORDOMUS_LOG says otherwise. Imports nothing up front: the entry point asks
 * this before anything else loads, and a hook's command is loaded straight from this table (`capture`'s own table lists
 * the same loaders), so a hook pays for none of the other commands, nor for the help and the suggestions.
 */
import type { CommandDef } from "citty";

export const HOOK_COMMANDS = {
  session: () => import("./commands/capture/session.ts").then((m) => m.default as CommandDef<any>),
  prompt: () => import("./commands/capture/prompt.ts").then((m) => m.default as CommandDef<any>),
  work: () => import("./commands/capture/work.ts").then((m) => m.default as CommandDef<any>),
  window: () => import("./commands/capture/window.ts").then((m) => m.default as CommandDef<any>),
} as const;

type HookName = keyof typeof HOOK_COMMANDS;
const isHookName = (name: string | undefined): name is HookName =>
  name !== undefined && Object.hasOwn(HOOK_COMMANDS, name);

export function isHookCommand(argv: readonly string[]): boolean {
  const words = argv.filter((a) => !a.startsWith("-"));
  return words[0] === "capture" && isHookName(words[1]);
}

/** The hook command named by the first two words as a shim passes them (`capture <hook> --flags…`), if so. */
export function hookNamed(argv: readonly string[]): HookName | undefined {
  return argv[0] === "capture" && isHookName(argv[1]) ? argv[1] : undefined;
}
