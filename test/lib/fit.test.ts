// Fitting text to a channel, in process: what is kept, counted as the client counts it.
import { describe, expect, test } from "bun:test";
import { headThatFits, measure, sizeOf } from "../../src/lib/fit.ts";

describe("fit", () => {
  test("counts as the client counts: string length or UTF-8 bytes", () => {
    expect(measure("čaj", "utf16")).toBe(3);
    expect(measure("čaj", "utf8")).toBe(4);
    expect(sizeOf(["ab", "c"], "utf16")).toBe(4);
  });

  test("keeps the longest head of whole lines that fits, separators counted", () => {
    const lines = ["aaaa", "bbbb", "cccc"];
    expect(headThatFits(lines, 9, "utf16")).toEqual({ shown: ["aaaa", "bbbb"], kept: 2, partial: false });
    expect(headThatFits(lines, 8, "utf16")).toEqual({ shown: ["aaaa"], kept: 1, partial: false });
    expect(headThatFits(lines, 100, "utf16").kept).toBe(3);
  });

  test("never ends inside a code fence: it ends before the fence opened", () => {
    const lines = ["intro", "```", "x1", "x2", "x3", "```", "after"];
    const head = headThatFits(lines, 14, "utf16");
    expect(head.shown).toEqual(["intro"]);
  });

  test("a fence that opens the text is closed when the cut falls inside it", () => {
    const head = headThatFits(["```", "one", "two", "three", "```"], 14, "utf16");
    expect(head.shown.at(-1)).toBe("```");
    expect(sizeOf(head.shown, "utf16")).toBeLessThanOrEqual(14);
  });

  test("one line longer than the room is quoted in part, marked, and never split inside a surrogate pair", () => {
    const head = headThatFits(["😀".repeat(50)], 21, "utf16", (l) => `> ${l}`);
    expect(head.partial).toBe(true);
    expect(head.shown[0]!.endsWith("…")).toBe(true);
    expect(measure(head.shown[0]!, "utf16")).toBeLessThanOrEqual(21);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(head.shown[0]!)).toBe(false);
  });
});

describe("the providers table's budgets", () => {
  test("every adapted client has a start budget within its own limit; the policy lowers a budget and never raises it", async () => {
    const { providers, budgetFor } = await import("../../src/providers/index.ts");
    for (const p of (await providers()).values()) {
      if (!p.hooks) continue;
      const row = p.hooks.budgets.start!;
      expect(row.source.length).toBeGreaterThan(20);
      if (row.limit !== undefined) expect(row.chars).toBeLessThan(row.limit);
      expect(p.hooks.end_budget_ms).toBeGreaterThan(0);
      expect(budgetFor(p.hooks, "start", undefined)!.chars).toBe(row.chars);
      const lowered = budgetFor(p.hooks, "start", { schema: "policy/v1", session: { briefing_budget_chars: 4_000 } })!;
      expect([lowered.chars, lowered.channel.endsWith("lowered by session.briefing_budget_chars")]).toEqual([
        4_000,
        true,
      ]);
      expect(
        budgetFor(p.hooks, "start", { schema: "policy/v1", session: { briefing_budget_chars: 50_000 } })!.chars,
      ).toBe(row.chars);
    }
  });
});
