/** Finding a program the way a shell would: the first executable of that name on PATH. */
import { accessSync, constants, realpathSync } from "node:fs";
import { join, sep } from "node:path";

/**
 * The first executable `name` on PATH; with `outside`, one that does not resolve into that folder
 * (a program inside the repository is the repository's, and a diagnostic never runs it).
 */
export function onPath(name: string, options: { outside?: string } = {}): string | undefined {
  const root = options.outside === undefined ? undefined : realpathSync(options.outside);
  for (const dir of (process.env.PATH ?? "").split(":").filter((d) => d !== "")) {
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
    } catch {
      continue;
    }
    if (root !== undefined) {
      const real = realpathSync(full);
      if (real === root || real.startsWith(root + sep)) continue;
    }
    return full;
  }
  return undefined;
}
