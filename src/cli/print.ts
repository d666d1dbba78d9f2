/**
 * `out` is data (stdout), `err` is for people (stderr). Both go through `printable`, and `err` is redacted too, since
 * an error may quote what it was given.
 */
import { printable } from "../lib/printable.ts";
import { redactShapes } from "../lib/redact.ts";
import { stderrLine } from "../lib/stderr.ts";

export function out(...parts: unknown[]): void {
  console.log(printable(parts.map(String).join(" ")));
}

export function err(...parts: unknown[]): void {
  stderrLine(printable(redactShapes(parts.map(String).join(" "))));
}

/**
 * A `--json` answer: one document named by its schema (`majordomus/<kind>/v1`, share/schemas/cli/); snake_case keys,
 * the main list in `items`.
 */
export function olderLeftOut(shown: number): void {
  err(`majordomus: the newest ${shown} shown; older ones exist (\`--limit 0\` lists every one)`);
}

export function outJson(kind: string, doc: Record<string, unknown>): void {
  out(JSON.stringify({ schema: `majordomus/${kind}/v1`, ...doc }));
}
