/**
 * A task's scope: repository-relative paths (a folder holds everything below it) and globs
 * (`src/**\/*.ts`, `docs/*.{md,txt}`), matched with Bun's own Glob. A runtime without one refuses
 * a glob when the task is started rather than never matching it.
 */
import { globMatcher } from "./runtime.ts";

const GLOB_CHARS = /[*?[{]/;
const compiled = new Map<string, ((path: string) => boolean) | undefined>();

export const isGlob = (part: string) => GLOB_CHARS.test(part);
export const canMatchGlobs = () => globMatcher("*") !== undefined;

/** The parts of `--scope`: split at commas, except those inside `{…}`. */
export function scopeParts(raw: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of raw) {
    if (ch === "{") depth++;
    if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

function globFor(pattern: string): ((path: string) => boolean) | undefined {
  if (!compiled.has(pattern)) compiled.set(pattern, globMatcher(pattern));
  return compiled.get(pattern);
}

export function inScope(scope: readonly string[], file: string): boolean {
  return scope.some(
    (s) => s === "." || file === s || file.startsWith(`${s}/`) || (isGlob(s) && globFor(s)?.(file) === true),
  );
}
