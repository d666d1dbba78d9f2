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
  // A line as majordomus writes it is JSON.stringify's own text: then it cannot repeat a key, and
  // its keys are the object's, in order. Only a line written some other way is scanned.
  const own = JSON.stringify(record) === text;
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
