/**
 * Commands are citty command definitions. `command()` only types them, so defining a command
 * does not load citty at run time: citty (and the `node:util` it imports, ~4 ms in a compiled
 * binary) is loaded only to render --help.
 */
import type { ArgsDef, CommandDef } from "citty";

export function command<T extends ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}
