/**
 * The words majordomus did not write, as every text view shows them: a record's body quoted line
 * by line behind `> `, and a single field (an author, a branch, a path, another worktree's task, a
 * client's session id) kept to one bounded line, in double quotes with JSON's escapes unless it
 * is a plain name. Nothing quoted can open a line of its own, so no stranger's text reads as one
 * of majordomus's headings or notices. An architecture rule holds every view to these two.
 */
import { escaped, printable } from "./printable.ts";

/** A line of record text as quoted data. */
export const quoted = (line: string) => (line === "" ? ">" : `> ${printable(line)}`);

/** What a plain name is made of: shown as it is. */
const PLAIN = /^[\w./@+:,=~#%-]+$/;
/** What JSON's escapes leave that could still break or turn a line: escaped as printable does. */
const AFTER_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The longest field shown; the rest is cut with `…`. */
export const FIELD_CHARS = 160;

/**
 * One field another writer chose, on one line: a plain name as it is (`main`, `src/a.ts`), anything
 * else in double quotes with its newlines, quotes and control characters escaped; cut past `max`.
 */
export function field(text: string, max = FIELD_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max)}…` : text;
  if (PLAIN.test(cut.replace(/…$/, ""))) return cut;
  return JSON.stringify(cut).replace(AFTER_JSON, escaped);
}

/** A list of fields, each quoted, joined with commas. */
export const fields = (texts: readonly string[], max = FIELD_CHARS) => texts.map((t) => field(t, max)).join(", ");

/** What a code span cannot hold and stay one span on one line. */
const NOT_CODE = /[`\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A field written as code: in backticks when it is one line without a backtick, else quoted as `field` quotes it. */
export function code(text: string, max = FIELD_CHARS): string {
  if (NOT_CODE.test(text)) return field(text, max);
  return `\`${text.length > max ? `${text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max)}…` : text}\``;
}
