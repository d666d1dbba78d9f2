/** A hook file that is majordomus's own (the `flat` dialect's): what in it majordomus did not write. */
import { isDeepStrictEqual } from "node:util";
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { answered, type Hooks, type Provider } from "../providers/index.ts";
import { settingsEntry } from "./shims.ts";
import { dialectOf } from "./dialects.ts";
import { objectAt } from "./config.ts";

/** The entries of a hook file of our own that are not ours, as `event: command` (a stranger's, planted in it). */
export function foreignEntries(settings: Record<string, unknown>, provider: Provider & { hooks: Hooks }): string[] {
  const dialect = dialectOf(provider.hooks);
  const ours = answered(provider.hooks).map((e) => ({
    event: provider.hooks.events[e].event,
    entry: settingsEntry(provider, e),
  }));
  return Object.entries(objectAt(settings, "hooks") ?? {}).flatMap(([event, list]) =>
    (Array.isArray(list) ? list : [list])
      .filter((entry) => !ours.some((o) => o.event === event && isDeepStrictEqual(o.entry, entry)))
      .map((entry) => `${event}: ${JSON.stringify(dialect.commands(entry).join(" | ") || entry)}`),
  );
}

/** The other hook files in our own file's folder: the client loads them too, and nobody here vouches for them. */
export function hookFilesBeside(root: string, own: string): string[] {
  const dir = join(root, dirname(own));
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(".json") && join(dirname(own), n) !== own && lstatSync(join(dir, n)).isFile())
      .map((n) => join(dirname(own), n))
      .sort();
  } catch {
    return [];
  }
}
