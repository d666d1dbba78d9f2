import type { ArgsDef } from "citty";
import { Failure } from "../lib/failure.ts";
import { PAGE } from "../lib/page.ts";

export const jsonArg = {
  json: { type: "boolean", description: "Print machine-readable JSON on stdout" },
} as const satisfies ArgsDef;

/** How many rows a listing shows unless told (`--limit 0` shows every one). */
export const LIST_DEFAULT = PAGE;

export const limitArg = {
  limit: { type: "string", description: `How many, newest first (default ${LIST_DEFAULT}; 0 for every one)` },
} as const satisfies ArgsDef;

/** A non-negative integer option, or a usage failure naming the option. */
export function intOption(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw);
  if (!/^\d+$/.test(text))
    throw new Failure("usage", `--${name} must be a whole number (got ${JSON.stringify(text)})`, `e.g. --${name} 20`);
  return Number(text);
}

/** A listing's `--limit` (LIST_DEFAULT unless given); given where nothing is listed, a usage failure saying where it applies. */
export function listLimit(raw: unknown, listing: boolean, appliesTo: string): number {
  if (raw !== undefined && !listing)
    throw new Failure("usage", `--limit applies only to ${appliesTo}`, `drop --limit, or list with ${appliesTo}`);
  return intOption("limit", raw) ?? LIST_DEFAULT;
}

export function exclusive(args: Record<string, unknown>, names: readonly string[]): void {
  const set = names.filter((n) => args[n] === true || (typeof args[n] === "string" && args[n] !== ""));
  if (set.length > 1)
    throw new Failure("usage", `--${set[0]} and --${set[1]} cannot be used together`, "run them one at a time");
}
