import { describe, expect, test } from "bun:test";
import { MAX_NESTING, parseLine, topLevelKeys } from "../../src/ledger/line.ts";

const GOOD =
  '{"ts":"2026-11-30T10:00:00.000Z","event":"layer.initialized","head":"NONE","branch":"main","by":"majordomus/1","mode":"init","created":3}';

describe("ledger lines", () => {
  test("a well-formed line parses with its payload", () => {
    const parsed = parseLine(GOOD);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.entry.created).toBe(3);
  });

  test.each([
    ["not json", "not valid JSON"],
    ["[1,2]", "not a JSON object"],
    ['{"event":"x","ts":"t","head":"h","branch":"b","by":"y"}', "envelope does not start with ts, event"],
    ['{"ts":"t","event":"x","head":"h","branch":"b"}', 'envelope key "by" is missing or not a string'],
    ['{"ts":"t","event":"x","head":"h","branch":"b","by":"y","event":"other"}', 'key "event" appears twice'],
    ['{"ts":"t","event":"x","head":1,"branch":"b","by":"y"}', 'envelope key "head" is missing or not a string'],
    // A key named twice, the second time spelled with an escape, is found as a repeat all the same.
    ['{"ts":"t","event":"x","head":"h","branch":"b","by":"y","\\u0065vent":"other"}', 'key "event" appears twice'],
    ['{"ts":"t","event":"x","head":"h","branch":"b","by":"y","mode":1,"mode":2}', 'key "mode" appears twice'],
    // Beside nested objects and lists of them, and spaced before its colons, a repeat is found all the same.
    [
      '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","p":{"q":1},"l":[{"r":2}],"mode":1,"mode":2}',
      'key "mode" appears twice',
    ],
    [
      '{"ts" : "t", "event" : "x", "head" : "h", "branch" : "b", "by" : "y", "mode" : 1, "mode" : 2}',
      'key "mode" appears twice',
    ],
    // The object lists a key that looks like a number first; the line's own order is what is judged.
    ['{"7":1,"ts":"t","event":"x","head":"h","branch":"b","by":"y"}', "envelope does not start with ts, event"],
  ])("%s is malformed: %s", (text, reason) => {
    const parsed = parseLine(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toBe(reason);
  });

  test.each([
    ["spaced as another writer would", '{ "ts": "t", "event": "x", "head": "h", "branch": "b", "by": "y" }'],
    ["a key's name also a value", '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","mode":"event"}'],
    [
      "a key that looks like a number, after the envelope",
      '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","7":1}',
    ],
    ["an escape in a value", '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","note":"say \\"hi\\""}'],
    [
      "a nested object repeating an envelope key",
      '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","p":{"event":1}}',
    ],
    [
      "a nested object naming its own key twice (only the line's own keys are judged)",
      '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","p":{"a":1,"a":2}}',
    ],
    [
      "a list of objects naming the same keys",
      '{"ts":"t","event":"x","head":"h","branch":"b","by":"y","l":[{"a":1},{"a":2}],"m":[]}',
    ],
    ["spaced before its colons", '{"ts" : "t", "event" : "x", "head" : "h", "branch" : "b", "by" : "y"}'],
  ])("a line %s is well formed", (_, text) => {
    const parsed = parseLine(text);
    expect(parsed).toMatchObject({ ok: true });
  });

  test("a line nested deeper than MAX_NESTING is malformed, judged without a crash however deep it goes", () => {
    const nested = (depth: number, open: string, close: string) =>
      `{"ts":"t","event":"x","head":"h","branch":"b","by":"y","p":${open.repeat(depth - 1)}1${close.repeat(depth - 1)}}`;
    // The line itself is the first level: its value nested MAX_NESTING - 1 more is as deep as a line may go.
    for (const [open, close] of [
      ["[", "]"],
      ['{"a":', "}"],
    ] as const) {
      expect(parseLine(nested(MAX_NESTING, open, close))).toMatchObject({ ok: true });
      for (const depth of [MAX_NESTING + 1, 100_000])
        expect(parseLine(nested(depth, open, close))).toMatchObject({
          ok: false,
          reason: `nested deeper than ${MAX_NESTING} levels`,
        });
    }
    // A repeat beside a deep value (kept within the bound) is still found.
    const repeat = nested(MAX_NESTING, '{"a":', "}").replace('"by":"y"', '"by":"y","by":"z"');
    expect(parseLine(repeat)).toMatchObject({ ok: false, reason: 'key "by" appears twice' });
  });

  test("top-level keys ignore nested objects, arrays and escaped quotes", () => {
    expect(topLevelKeys('{"a":{"b":1,"c":[{"d":2}]},"e":"x\\",\\"f\\":1","g":[1,{"h":3}]}')).toEqual(["a", "e", "g"]);
  });
});
