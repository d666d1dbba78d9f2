/**
 * Commands are citty command definitions, with examples for their help. `command()` only types
 * them, so defining a command loads nothing at run time; the help text is our own view over the
 * definition (help.ts).
 */
import type { ArgsDef, CommandDef } from "citty";

export type Command<T extends ArgsDef = ArgsDef> = CommandDef<T> & {
  /** Lines a person can copy as they are, shown under "Examples" in --help. */
  examples?: readonly string[];
};

export function command<T extends ArgsDef>(def: Command<T>): Command<T> {
  return def;
}
