/**
 * Commands are citty command definitions, with examples for their help. `command()` only types
 * them, so defining a command loads nothing at run time; the help text is our own view over the
 * definition (help.ts).
 */
import type { ArgsDef, CommandDef } from "citty";

export type Command<T extends ArgsDef = ArgsDef> = CommandDef<T> & {
  /** Lines a person can copy as they are, shown under "Examples" in --help. */
  examples?: readonly string[];
  /**
   * A server (`mcp`, `serve`): it answers for as long as it runs, so its clock is not pinned to
   * the instant it started (lib/clock.ts), and each answer builds its own workspace (so git's
   * answers, which a position keeps, are asked afresh); otherwise every answer would be dated,
   * aged and labelled as of the server's start.
   */
  longLived?: true;
};

export function command<T extends ArgsDef>(def: Command<T>): Command<T> {
  return def;
}
