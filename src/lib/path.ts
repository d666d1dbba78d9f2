/**
 * A program found as a shell finds it, but never one the repository controls: PATH keeps only absolute folders
 * outside the repository (an empty or relative entry resolves against a hook's working directory, the repository), so
 * a stranger's `git` is never run.
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

function repositoryOf(cwd: string): string {
  const start = real(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

const trusted = new Map<string, string>();

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

export function programIn(pathValue: string, name: string): string | undefined {
  for (const dir of pathValue.split(":").filter((d) => d !== "")) {
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {}
  }
  return undefined;
}

export function onPath(name: string, options: { outside?: string } = {}): string | undefined {
  return programIn(trustedPath(env("PATH"), options.outside ?? process.cwd(), options.outside), name);
}
