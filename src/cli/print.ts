/**
 * The CLI's two streams: `out` is data (stdout: briefings, listings, `--json`), `err` is for
 * people (stderr). Both go through `printable`, so no record or payload text reaches a terminal
 * with its control characters; what goes to people is redacted too, since an error may quote what
 * it was given (a note, a path, an argument).
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
 * A command's `--json` answer: one document on stdout, named by its schema (`majordomus/<kind>/v1`,
 * described by share/schemas/cli/<kind>.schema.json). Keys are snake_case; a document's main list
 * is `items`.
 */
/** What a paged listing says on stderr when it left older rows out. */
export function olderLeftOut(shown: number): void {
  err(`majordomus: the newest ${shown} shown; older ones exist (\`--limit 0\` lists every one)`);
}

export function outJson(kind: string, doc: Record<string, unknown>): void {
  out(JSON.stringify({ schema: `majordomus/${kind}/v1`, ...doc }));
}
