import { describe, expect, test } from "bun:test";
import { validate, type Schema } from "../../src/lib/schema.ts";

const SCHEMA: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, pattern: "^[a-z]+$" },
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number" },
    mode: { enum: ["a", "b"] },
    fixed: { const: "v1" },
    tags: { type: "array", minItems: 1, uniqueItems: true, items: { type: "string" } },
    nested: { type: "object", additionalProperties: false, properties: { on: { type: "boolean" } } },
  },
};

const ROWS: Array<{ value: unknown; problems: string[] }> = [
  { value: { name: "ok" }, problems: [] },
  {
    value: { name: "ok", count: 3, ratio: 0.5, mode: "b", fixed: "v1", tags: ["x"], nested: { on: true } },
    problems: [],
  },
  { value: [], problems: [": must be object (found array [])"] },
  { value: {}, problems: ["name: is required but missing"] },
  { value: { name: "" }, problems: ["name: must not be empty", 'name: must match ^[a-z]+$ (found "")'] },
  { value: { name: "ok", count: 0 }, problems: ["count: must be at least 1 (found 0)"] },
  { value: { name: "ok", count: 11 }, problems: ["count: must be at most 10 (found 11)"] },
  { value: { name: "ok", count: 1.5 }, problems: ["count: must be integer (found number 1.5)"] },
  { value: { name: "ok", count: "3" }, problems: ['count: must be integer (found string "3")'] },
  { value: { name: "ok", ratio: 2 }, problems: [] },
  { value: { name: "ok", mode: "c" }, problems: ['mode: must be one of "a", "b" (found "c")'] },
  { value: { name: "ok", fixed: "v2" }, problems: ['fixed: must be "v1" (found "v2")'] },
  { value: { name: "ok", tags: [] }, problems: ["tags: must list at least 1 item(s)"] },
  { value: { name: "ok", tags: ["a", "a"] }, problems: ['tags[1]: repeats "a"'] },
  { value: { name: "ok", tags: ["a", 3] }, problems: ["tags[1]: must be string (found integer 3)"] },
  {
    value: { name: "ok", nested: { on: "yes", off: true } },
    problems: ['nested.on: must be boolean (found string "yes")', "nested.off: is not a known key"],
  },
  { value: { name: "ok", extra: 1, other: 2 }, problems: ["extra: is not a known key", "other: is not a known key"] },
];

describe("schema validation reports every problem with its key path", () => {
  for (const row of ROWS) {
    test(JSON.stringify(row.value), () => {
      expect(validate(SCHEMA, row.value).map((p) => `${p.path}: ${p.message}`)).toEqual(row.problems);
    });
  }
});
