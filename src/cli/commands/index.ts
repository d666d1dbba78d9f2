/**
 * Every command, loaded only when it runs. The build splits each into its own chunk, so a hook
 * invocation parses none of the others.
 */
import type { CommandDef } from "citty";

type Lazy = () => Promise<CommandDef<any>>;

export const COMMANDS = {
  init: () => import("./init.ts").then((m) => m.default),
  history: () => import("./history.ts").then((m) => m.default),
  policy: () => import("./policy.ts").then((m) => m.default),
} as const satisfies Record<string, Lazy>;

export type CommandName = keyof typeof COMMANDS;
