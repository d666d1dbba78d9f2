/**
 * A JSON Schema validator for the subset our schemas use (draft 2020-12 keywords: type, const, enum, properties,
 * required, additionalProperties, items, minItems, uniqueItems, minimum, maximum, minLength, pattern). It reports every
 * problem, each with the key path where it is, so one run of a command tells the person everything to fix.
 */
export type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  minItems?: number;
  uniqueItems?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  description?: string;
};

export type Problem = { path: string; message: string };

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, wanted: string): boolean {
  const actual = typeOf(value);
  return actual === wanted || (wanted === "number" && actual === "integer");
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** What a value is, for a message: `null`, `integer 5`, `string "x"`, `array [1,2]` (shortened). */
function found(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const text = show(value);
  return `${typeOf(value)} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

type Check = (schema: Schema, value: unknown, path: string, out: Problem[]) => void;

/** One row per keyword; each row looks only at its own keyword. */
const KEYWORDS: Check[] = [
  (s, v, p, out) => {
    if (s.const !== undefined && v !== s.const)
      out.push({ path: p, message: `must be ${show(s.const)} (found ${show(v)})` });
  },
  (s, v, p, out) => {
    if (s.enum && !s.enum.includes(v))
      out.push({ path: p, message: `must be one of ${s.enum.map(show).join(", ")} (found ${show(v)})` });
  },
  (s, v, p, out) => {
    if (typeof v !== "number") return;
    if (s.minimum !== undefined && v < s.minimum)
      out.push({ path: p, message: `must be at least ${s.minimum} (found ${v})` });
    if (s.maximum !== undefined && v > s.maximum)
      out.push({ path: p, message: `must be at most ${s.maximum} (found ${v})` });
  },
  (s, v, p, out) => {
    if (typeof v !== "string") return;
    if (s.minLength !== undefined && v.length < s.minLength)
      out.push({ path: p, message: v === "" ? "must not be empty" : `must be at least ${s.minLength} characters` });
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v))
      out.push({ path: p, message: `must match ${s.pattern} (found ${show(v)})` });
  },
  (s, v, p, out) => {
    if (!Array.isArray(v)) return;
    if (s.minItems !== undefined && v.length < s.minItems)
      out.push({ path: p, message: `must list at least ${s.minItems} item(s)` });
    if (s.uniqueItems) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const key = show(item);
        if (seen.has(key)) out.push({ path: join(p, i), message: `repeats ${key}` });
        seen.add(key);
      });
    }
    if (s.items) v.forEach((item, i) => check(s.items!, item, join(p, i), out));
  },
  (s, v, p, out) => {
    if (typeOf(v) !== "object") return;
    const record = v as Record<string, unknown>;
    for (const key of s.required ?? []) {
      if (!(key in record)) out.push({ path: join(p, key), message: "is required but missing" });
    }
    for (const [key, child] of Object.entries(record)) {
      const sub = s.properties?.[key];
      if (sub) check(sub, child, join(p, key), out);
      else if (s.additionalProperties === false) out.push({ path: join(p, key), message: "is not a known key" });
    }
  },
];

function check(schema: Schema, value: unknown, path: string, out: Problem[]): void {
  if (schema.type !== undefined) {
    const wanted = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!wanted.some((t) => matchesType(value, t))) {
      out.push({ path, message: `must be ${wanted.join(" or ")} (found ${found(value)})` });
      return;
    }
  }
  for (const keyword of KEYWORDS) keyword(schema, value, path, out);
}

/** Every problem of `value` against `schema`; empty when it conforms. Paths are `a.b[2].c`. */
export function validate(schema: Schema, value: unknown): Problem[] {
  const out: Problem[] = [];
  check(schema, value, "", out);
  return out;
}
