/** Commands are citty definitions with examples; `command()` only types them, so defining one loads nothing. */
import type { ArgsDef, CommandDef } from "citty";

export type Command<T extends ArgsDef = ArgsDef> = CommandDef<T> & {
  examples?: readonly string[];
  /**
   * A server: its clock is not pinned and each answer builds its own workspace, else every answer would be dated as
   * of its start.
   */
  longLived?: true;
  /** The heading each subcommand is listed under in `--help`, by name (in the order the headings first appear). */
  groups?: Readonly<Record<string, string>>;
};

export function command<T extends ArgsDef>(def: Command<T>): Command<T> {
  return def;
}
