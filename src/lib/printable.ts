/**
 * Text from records and payloads may come from a stranger (a force-added open-questions.md, a handover body, a key
 * name, a branch) and carry terminal control sequences. Everything majordomus prints goes through `printable`: every
 * control character but newline and tab (C0, DEL and C1), the Unicode line and paragraph separators, and the
 * bidirectional overrides are shown as `\uXXXX`, which reads as text in a terminal and stays a valid escape in JSON.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

export function printable(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** A clause as the start of a sentence: its first letter upper case. */
export const capitalized = (clause: string): string => `${clause.charAt(0).toUpperCase()}${clause.slice(1)}`;
