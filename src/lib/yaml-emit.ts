/**
 * Writes the small YAML documents majordomus owns (record front matter, the task record):
 * a flat map of scalars and string lists, in the order given. Strings are written as JSON
 * strings when plain YAML could misread them, so what is written always parses back to itself.
 */
export type Scalar = string | number | boolean | null;
export type Value = Scalar | readonly string[];

/**
 * A string written bare: it opens with a letter, a digit, `_`, `.` or `/` (YAML refuses a bare
 * `@`, and a bare `-` opens a list: `@types/node.d.ts` or `-` in a list of changed files made the
 * whole record unreadable, or read back as a nested list) and holds nothing YAML treats as syntax.
 */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./@+ :-]*$/;
/** Words YAML would read as something other than a string. */
const RESERVED = /^(true|false|yes|no|on|off|null|~|y|n|\.inf|\.nan)$/i;
const NUMBERISH = /^[-+.]?(\d|\.\d)|^0[xob]/i;

export function scalar(value: Scalar): string {
  if (value === null) return "null";
  if (typeof value !== "string") return String(value);
  const plain =
    PLAIN.test(value) &&
    !RESERVED.test(value) &&
    !NUMBERISH.test(value) &&
    !value.includes(": ") &&
    !value.endsWith(":") &&
    !value.endsWith(" ");
  return plain ? value : JSON.stringify(value);
}

export function emitMap(entries: ReadonlyArray<readonly [string, Value]>): string {
  const lines: string[] = [];
  for (const [key, value] of entries) {
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${key}: []`);
      else lines.push(`${key}:`, ...value.map((v) => `  - ${scalar(v)}`));
    } else lines.push(`${key}: ${scalar(value as Scalar)}`);
  }
  return `${lines.join("\n")}\n`;
}
