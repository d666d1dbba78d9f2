/**
 * The words majordomus did not write, as every view shows them: a body quoted behind `> `, a field kept to one
 * bounded line (quoted with JSON's escapes unless a plain name). Nothing quoted can read as one of our headings; an
 * architecture rule holds every view to these.
 */
import { escaped, printable } from "./printable.ts";

export const quoted = (line: string) => (line === "" ? ">" : `> ${printable(line)}`);

const PLAIN = /^[\w./@+:,=~#%-]+$/;
const AFTER_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const FIELD_CHARS = 160;

export function field(text: string, max = FIELD_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max)}…` : text;
  if (PLAIN.test(cut.replace(/…$/, ""))) return cut;
  return JSON.stringify(cut).replace(AFTER_JSON, escaped);
}

export const fields = (texts: readonly string[], max = FIELD_CHARS) => texts.map((t) => field(t, max)).join(", ");

const NOT_CODE = /[`\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function code(text: string, max = FIELD_CHARS): string {
  if (NOT_CODE.test(text)) return field(text, max);
  return `\`${text.length > max ? `${text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max)}…` : text}\``;
}
