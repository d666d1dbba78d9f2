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

/** Each key as it stands quoted in a line without escapes; the keys of a ledger are few. */
const quoted = new Map<string, string>();

/**
 * Whether `text` (which parsed as `record`) surely names each key once, with the envelope first,
 * so the object's keys are the line's, in order. A line without a backslash spells every key as
 * `"key"` exactly; a key named twice would show that spelling twice. The object lists a name
 * that looks like a number first, which the line need not: such a line, or one with an escape, is
 * scanned instead. Cheaper than comparing the line with JSON.stringify's text of it (a third of a
 * doctor's pass over 200,000 lines), and it also trusts a line another writer spaced differently.
 */
function plainlyOnce(text: string, record: Record<string, unknown>): boolean {
  if (text.includes("\\")) return false;
  const keys = Object.keys(record);
  if (keys[0] !== "ts" || keys[1] !== "event") return false;
  for (const key of keys) {
    let spelled = quoted.get(key);
    if (spelled === undefined) {
      spelled = `"${key}"`;
      // A stranger's ledger may name any number of keys: only so many are remembered.
      if (quoted.size < 1000) quoted.set(key, spelled);
    }
    if (text.indexOf(spelled, text.indexOf(spelled) + spelled.length) !== -1) return false;
  }
  return true;
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
  // Only a line that might repeat a key is scanned for its keys (see plainlyOnce).
  const own = plainlyOnce(text, record);
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
