/**
 * Writes the small YAML documents majordomus owns (front matter, the task): a map of scalars, string lists and maps of
 * those, strings as JSON where plain YAML could misread them, so each parses back to itself.
 */
export type Scalar = string | number | boolean | null;
type Flat = Scalar | readonly string[];
export type Value = Flat | { readonly [key: string]: Flat };

/**
 * Bare only when it opens with a letter, digit, `_`, `.` or `/` (a bare `@` is refused, a bare `-` opens a list: both
 * once made records unreadable) and holds no YAML syntax.
 */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./@+ :-]*$/;
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

function entryLines(key: string, value: Value, indent: string): string[] {
  if (Array.isArray(value))
    return value.length === 0
      ? [`${indent}${key}: []`]
      : [`${indent}${key}:`, ...value.map((v) => `${indent}  - ${scalar(v)}`)];
  if (value !== null && typeof value === "object")
    return [`${indent}${key}:`, ...Object.entries(value).flatMap(([k, v]) => entryLines(k, v as Flat, `${indent}  `))];
  return [`${indent}${key}: ${scalar(value as Scalar)}`];
}

export function emitMap(entries: ReadonlyArray<readonly [string, Value]>): string {
  return `${entries.flatMap(([key, value]) => entryLines(key, value, "")).join("\n")}\n`;
}

function keyChar(code: number, first: boolean): boolean {
  return (code >= 97 && code <= 122) || code === 95 || (!first && code >= 48 && code <= 57);
}

/** A bare character every YAML reader (1.1, 1.2) reads as string; scalarOf refuses `: `, a trailing `:` or space. */
function bareChar(code: number, first: boolean): boolean {
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 47) return true;
  return (
    !first &&
    ((code >= 48 && code <= 57) ||
      code === 46 ||
      code === 64 ||
      code === 43 ||
      code === 45 ||
      code === 32 ||
      code === 58)
  );
}

/** An integer as YAML reads one (only `-`, no leading zero, at most 15 digits), or undefined. */
function integerOf(text: string, start: number, end: number): number | undefined {
  const negative = text.charCodeAt(start) === 45;
  const from = negative ? start + 1 : start;
  const digits = end - from;
  if (
    digits < 1 ||
    digits > 15 ||
    (digits > 1 && text.charCodeAt(from) === 48) ||
    (negative && digits === 1 && text.charCodeAt(from) === 48)
  )
    return undefined;
  let n = 0;
  for (let i = from; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

/** The scalar as readOwnMap reads it, or undefined when only a YAML parser should say. */
function scalarOf(text: string, start: number, end: number): unknown {
  if (start >= end) return undefined;
  const first = text.charCodeAt(start);
  if (first === 34) {
    if (end - start < 2 || text.charCodeAt(end - 1) !== 34) return undefined;
    try {
      // A one-line JSON string is a YAML double-quoted one of the same value.
      return JSON.parse(text.slice(start, end)) as string;
    } catch {
      return undefined;
    }
  }
  if ((first >= 48 && first <= 57) || first === 45) return integerOf(text, start, end);
  // A dot followed by a letter or `/` (`.ai/local/…`) is never a number.
  const second = text.charCodeAt(start + 1);
  const dotted = first === 46 && ((second >= 65 && second <= 90) || (second >= 97 && second <= 122) || second === 47);
  for (let i = dotted ? start + 1 : start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (!bareChar(code, i === start || (dotted && i === start + 1))) return undefined;
    if (code === 58 && (i === end - 1 || text.charCodeAt(i + 1) === 32)) return undefined;
  }
  if (text.charCodeAt(end - 1) === 32) return undefined;
  const word = text.slice(start, end);
  if (word === "null") return null;
  if (word === "true") return true;
  if (word === "false") return false;
  // Any other word a reader could take for a boolean or null (YAML 1.1's yes, ON, ~) is the parser's to say.
  return end - start <= 5 && RESERVED.test(word) ? undefined : word;
}

/**
 * Read back exactly the shape emitMap writes without a parser, or undefined for anything else (a comment after a
 * value, a repeated key, an ambiguous word), which the parser is then asked. doctor's 30,000 front matters took 12 µs
 * each with the built-in parser, a fraction of that here.
 */
export function readOwnMap(text: string): Record<string, unknown> | undefined {
  if (text === "" || text === "\n") return undefined;
  const out: Record<string, unknown> = {};
  let list: unknown[] | undefined;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end === start) return undefined;
    if (text.charCodeAt(start) === 35) {
      start = end + 1;
      continue;
    }
    if (text.startsWith("  - ", start)) {
      const item = list === undefined ? undefined : scalarOf(text, start + 4, end);
      if (item === undefined) return undefined;
      list!.push(item);
    } else {
      if (list !== undefined && list.length === 0) return undefined;
      list = undefined;
      let colon = start;
      while (colon < end && keyChar(text.charCodeAt(colon), colon === start)) colon++;
      if (colon === start || colon === end || text.charCodeAt(colon) !== 58) return undefined;
      const key = text.slice(start, colon);
      if (key === "__proto__" || Object.hasOwn(out, key)) return undefined;
      if (colon === end - 1) out[key] = list = [];
      else {
        if (text.charCodeAt(colon + 1) !== 32) return undefined;
        const value = end - colon === 4 && text.startsWith("[]", colon + 2) ? [] : scalarOf(text, colon + 2, end);
        if (value === undefined) return undefined;
        out[key] = value;
      }
    }
    start = end + 1;
  }
  return list !== undefined && list.length === 0 ? undefined : out;
}
