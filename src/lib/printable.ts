/**
 * Text from records and payloads may come from a stranger (a force-added open-questions.md, a
 * handover body, a key name, a branch) and carry terminal control sequences. Everything majordomus
 * prints goes through `printable`: every control character but newline and tab (C0, DEL and C1)
 * is shown as `\uXXXX`, which reads as text in a terminal and stays a valid escape in JSON.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A clause as the start of a sentence: its first letter upper case. */
export const capitalized = (clause: string): string => `${clause.charAt(0).toUpperCase()}${clause.slice(1)}`;
