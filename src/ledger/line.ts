/**
 * One ledger line: the envelope every line starts with, then the payload. A line whose top-level
 * keys repeat is malformed: JSON.parse would silently keep the last value, and the envelope must
 * win, so such a line is reported rather than guessed at.
 */
export const ENVELOPE_KEYS = ["ts", "event", "head", "branch", "by", "session"] as const;
export type EnvelopeKey = (typeof ENVELOPE_KEYS)[number];

export type Entry = {
  ts: string;
  event: string;
  head: string;
  branch: string;
  by: string;
  session?: string;
  [payload: string]: unknown;
};

export type Parsed = { ok: true; entry: Entry; text: string } | { ok: false; reason: string; text: string };

/** Top-level keys of a JSON object text, in order, repeats included. Assumes JSON.parse accepted it. */
export function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(text.slice(i, j + 1)));
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = depth === 1 && c === "{";
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    }
  }
  return keys;
}

/**
 * How deep a line may nest: far past any event majordomus writes (three levels), and far short of
 * what makes printing it overflow the stack (JSON.stringify fails near 50,000 levels). A deeper
 * line is malformed, so no reader, printer or check ever meets it.
 */
export const MAX_NESTING = 64;

/**
 * How many keys the objects in `record` name at every depth, and whether it nests deeper than
 * MAX_NESTING: walked with a list of its own, never by recursion (a stranger's line may nest a
 * hundred thousand deep). Most lines are flat: the list is made only for a line that nests.
 */
function shapeOf(record: Record<string, unknown>): { keys: number; tooDeep: boolean } {
  let keys = 0;
  let waiting: Array<[unknown, number]> | undefined;
  let next: unknown = record;
  let depth = 1;
  for (;;) {
    if (depth > MAX_NESTING) return { keys, tooDeep: true };
    if (Array.isArray(next)) {
      for (const item of next) if (item !== null && typeof item === "object") (waiting ??= []).push([item, depth + 1]);
    } else {
      for (const key in next as Record<string, unknown>) {
        keys++;
        const item = (next as Record<string, unknown>)[key];
        if (item !== null && typeof item === "object") (waiting ??= []).push([item, depth + 1]);
      }
    }
    const popped = waiting?.pop();
    if (popped === undefined) return { keys, tooDeep: false };
    [next, depth] = popped;
  }
}

/**
 * Whether `text` (which parsed as `record`) surely names each key once, with the envelope first,
 * so the object's keys are the line's, in order. In a line without a backslash no string holds a
 * quote, so `":` stands only where a key ends: as many of them as the parsed objects have keys
 * means no key was named twice (a repeat leaves one key for two). The object lists a name that
 * looks like a number first, which the line need not; such a line, one with an escape, and one
 * spaced otherwise (`"a" : 1`) are scanned instead. One pass of the line's own search, where
 * looking for each key's spelling twice took a third of doctor's pass over 200,000 lines.
 */
function plainlyOnce(text: string, record: Record<string, unknown>, keysNamed: number): boolean {
  if (text.includes("\\")) return false;
  const keys = Object.keys(record);
  if (keys[0] !== "ts" || keys[1] !== "event") return false;
  let ends = 0;
  for (let i = text.indexOf('":'); i !== -1; i = text.indexOf('":', i + 2)) ends++;
  return ends === keysNamed;
}

const REQUIRED_STRINGS: readonly EnvelopeKey[] = ["ts", "event", "head", "branch", "by"];

export function parseLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not valid JSON", text };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, reason: "not a JSON object", text };
  const record = value as Record<string, unknown>;
  const shape = shapeOf(record);
  if (shape.tooDeep) return { ok: false, reason: `nested deeper than ${MAX_NESTING} levels`, text };
  // Only a line that might repeat a key is scanned for its keys (see plainlyOnce).
  const own = plainlyOnce(text, record, shape.keys);
  const keys = own ? Object.keys(record) : topLevelKeys(text);
  const repeated = own ? undefined : keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated !== undefined) return { ok: false, reason: `key "${repeated}" appears twice`, text };
  for (const key of REQUIRED_STRINGS) {
    if (typeof record[key] !== "string")
      return { ok: false, reason: `envelope key "${key}" is missing or not a string`, text };
  }
  if (keys[0] !== "ts" || keys[1] !== "event")
    return { ok: false, reason: "envelope does not start with ts, event", text };
  return { ok: true, entry: record as Entry, text };
}

/** The payload: every key that is not part of the envelope. */
export function payloadOf(entry: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) if (!(ENVELOPE_KEYS as readonly string[]).includes(k)) out[k] = v;
  return out;
}
