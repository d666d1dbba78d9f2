/**
 * Finding a program the way a shell would, but never one the repository controls: the PATH a
 * command (or a program it starts) searches keeps only absolute folders outside the repository it
 * runs in. An empty or relative entry (`.`, `bin`) is resolved against the working directory,
 * which a hook's is: the repository's; a folder inside the repository holds the repository's own
 * programs. Both are dropped, so a stranger's `git` or `majordomus` is never run.
 */
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";
import { env } from "./env.ts";

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

const inside = (path: string, root: string) => path === root || path.startsWith(root + sep);

/** The repository `cwd` is in (the nearest folder with a `.git`), or `cwd` itself. */
function repositoryOf(cwd: string): string {
  const start = real(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

const trusted = new Map<string, string>();

/** `pathEnv` without its empty and relative entries and without folders inside the repository `cwd` is in (or inside `outside`). */
export function trustedPath(pathEnv: string | undefined, cwd: string, outside?: string): string {
  const key = `${pathEnv}\0${cwd}\0${outside ?? ""}`;
  const known = trusted.get(key);
  if (known !== undefined) return known;
  const roots = [repositoryOf(cwd), ...(outside === undefined ? [] : [real(outside)])];
  const kept = (pathEnv ?? "")
    .split(":")
    .filter((dir) => dir !== "" && isAbsolute(dir) && !roots.some((root) => inside(real(dir), root)));
  const value = kept.join(":");
  trusted.set(key, value);
  return value;
}

/** The first executable `name` in `pathValue` (a PATH already made trusted), or undefined. */
export function programIn(pathValue: string, name: string): string | undefined {
  for (const dir of pathValue.split(":").filter((d) => d !== "")) {
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The first executable `name` on this process's PATH, outside the repository `outside` is in (default: the working directory's). */
export function onPath(name: string, options: { outside?: string } = {}): string | undefined {
  return programIn(trustedPath(env("PATH"), options.outside ?? process.cwd(), options.outside), name);
}
