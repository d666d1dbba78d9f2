/**
 * The CLI's two streams: `out` is data (stdout: briefings, listings, `--json`), `err` is for
 * people (stderr). Both go through `printable`, so no record or payload text reaches a terminal
 * with its control characters.
 */
import { printable } from "../lib/printable.ts";

export function out(...parts: unknown[]): void {
  console.log(printable(parts.map(String).join(" ")));
}

export function err(...parts: unknown[]): void {
  console.error(printable(parts.map(String).join(" ")));
}
