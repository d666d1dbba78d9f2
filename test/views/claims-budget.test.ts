// The briefing's list of citations within the channel's budget, in process over hand-built facts:
// a long Next Action with many citations keeps the agent's words whole; the citations yield to one
// line that counts them and names the news.
import { describe, expect, test } from "bun:test";
import { briefing } from "../../src/views/briefing.ts";
import type { ClaimLabel } from "../../src/records/claims.ts";
import { facts, record } from "../support/facts.ts";

const label = (i: number, state: ClaimLabel["state"], text: string): ClaimLabel => ({
  cited: `src/module-with-a-long-name-${i}.ts:${i}-${i + 2}`,
  kind: "path",
  state,
  label: text,
});

describe("citations within the budget", () => {
  test("a 100-step Next Action citing 24 paths: the budget holds, the news stays named, the unchanged ones are counted", () => {
    const next = Array.from(
      { length: 100 },
      (_, i) => `${i + 1}. Edit src/module-with-a-long-name-${i % 24}.ts and test it.`,
    );
    const labels = [
      label(0, "deleted", "deleted"),
      label(1, "changed", "changed since (2 commits, +10 −3 lines)"),
      ...Array.from({ length: 22 }, (_, i) => label(i + 2, "unchanged", "unchanged")),
    ];
    const f = facts({
      handover: { skipped: 0, view: record({ next_action: next, claims: { labels, all_gone: false } }) },
    });
    // Room for all of it: the list names eight, the rest counted.
    const roomy = briefing(f, { chars: 9_500, counts: "utf16", channel: "Claude Code's session-start context" });
    expect(roomy.lines.join("\n")).toContain("- … and 16 more, unchanged: `majordomus handover --claims` lists them");
    // Short of room: the list gives way to one line that counts them and names the news, before a step of the Next Action.
    const chars = roomy.size - 100;
    const made = briefing(f, { chars, counts: "utf16", channel: "Claude Code's session-start context" });
    const text = made.lines.join("\n");
    expect(made.size).toBeLessThanOrEqual(chars);
    expect(text).toContain(
      "It cites 24, checked now: 1 deleted (src/module-with-a-long-name-0.ts:0-2), 1 changed (src/module-with-a-long-name-1.ts:1-3), 22 unchanged; `majordomus handover --claims` lists each.",
    );
    expect(text).not.toContain("`src/module-with-a-long-name-5.ts:5-7`: unchanged");
    expect(made.cuts[0]).toEqual({
      part: "the cited paths",
      what: "summarised",
      command: "majordomus handover --claims",
    });
    expect(made.lines.filter((l) => /^> \d+\. Edit/.test(l)).length).toBe(100);
  });
});
