/**
 * One ledger line: the envelope, then the payload. Repeated top-level keys make it malformed, since JSON.parse keeps
 * the last value and the envelope must win.
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
 * Far past what majordomus writes (three levels), far short of what overflows printing (JSON.stringify fails near
 * 50,000).
 */
export const MAX_NESTING = 64;

/** Keys named at every depth, walked with a list, never recursion (a stranger's line may nest 100,000 deep). */
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
 * Whether the line surely names each key once, envelope first: with no backslash no string holds a quote, so the
 * count of `":` equals the keys parsed unless one repeats. Anything else is scanned; searching each key twice had
 * taken a third of doctor's pass.
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

export function payloadOf(entry: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) if (!(ENVELOPE_KEYS as readonly string[]).includes(k)) out[k] = v;
  return out;
}
