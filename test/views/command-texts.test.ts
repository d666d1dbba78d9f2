/** The session, checkpoint and handover commands' texts, in process over hand-built episodes and records. */
import { describe, expect, test } from "bun:test";
import type { OpenEpisode } from "../../src/session/store.ts";
import { closedLine, openLines, shownOpenLines, statusLines } from "../../src/views/episodes.ts";
import { AT, HEAD, record } from "../support/facts.ts";

const episode = (n: number, over: Partial<OpenEpisode> = {}): OpenEpisode => ({
  session_id: `s-${n}`,
  opened_at: new Date(AT.getTime() - n * 60_000).toISOString(),
  opened_by: "claude-code",
  owner: "dev",
  worker: "claude-code",
  provider: "claude-code",
  provider_session: `cc-${n}`,
  repository_id: "r-1",
  worktree: "/r",
  branch: "main",
  start_head: HEAD,
  start_working_tree: "clean",
  task_id: "none",
  context_path: `.ai/local/state/sessions-open/cc-${n}.md`,
  ...over,
});

describe("episode texts", () => {
  test("open episodes past a page are counted, not listed, and the count says how to see them", () => {
    const lines = openLines(
      AT,
      Array.from({ length: 23 }, (_, i) => episode(i)),
      "Open: ",
    );
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe("Open: s-0 (claude-code session cc-0, opened just now)");
    expect(lines.at(-1)).toStartWith("… and 3 older open episode(s)");
  });

  test("status names this process's episode, what reached the model, the others and the work still being written", () => {
    const mine = {
      ...episode(5),
      age: "5m",
      start_label: "exact" as const,
      delivery: { state: "delivered", cause: "whole" },
    };
    const text = statusLines({
      at: AT,
      mine,
      because: "this process's episode",
      others: [episode(9, { provider: "none", provider_session: "none" })],
      handed: [{ ticket: ".ai/local/state/hook-work/end--x-1.work", event: "end", age_ms: 4_200, worker_lost: true }],
    });
    expect(text[0]).toContain("Episode s-5, opened");
    expect(text[0]).toContain("provider claude-code (session cc-5)");
    expect(text).toContain("Briefing: delivered — whole");
    expect(text).toContain("Also open: s-9 (by hand, opened 9m ago)");
    expect(text.at(-1)).toBe(
      "Still being written: end work a hook handed off 4 s ago (.ai/local/state/hook-work/end--x-1.work); its worker died, see `majordomus doctor`",
    );
  });

  test("with several open and none this process's, status says so instead of picking one", () => {
    const text = statusLines({ at: AT, because: null, several: 2, others: [episode(1), episode(2)], handed: [] });
    expect(text[0]).toBe("2 episodes are open in this checkout; this process belongs to none of them:");
    expect(text.slice(1).every((l) => l.startsWith("Open: "))).toBe(true);
    expect(statusLines({ at: AT, because: null, others: [], handed: [] })).toEqual([
      "No episode is open in this checkout.",
    ]);
  });

  test("show of an open episode, and a closed record's listing line", () => {
    const d = { ...episode(1), age: "1m", start_label: "advanced" as const };
    expect(shownOpenLines(d, null)).toHaveLength(4);
    expect(shownOpenLines(d, null)[1]).toBe("On main from aaaaaaa (advanced); task at open none");
    expect(closedLine({ closed_at: "t", session_id: "s-1", outcome: "closed", branch: "main" }, "exact", "p.md")).toBe(
      "t  s-1  closed  main  exact  p.md",
    );
  });
});

describe("record texts", () => {
  test("a resolved record shows its labels, what was derived since, and withholds a stale one's Next Action", async () => {
    const { resolvedLines, shownLines } = await import("../../src/views/records.ts");
    const base = record({
      path: ".ai/local/state/handovers/a.md",
      body: "# Objective\nShip.\n\n# Next Action\nRun the tests.\n",
    });
    const since = { ...base, path: ".ai/local/state/handovers/b.md", how: "derived", session: "s-2", age: "1m" };
    const fresh = resolvedLines("handover", base, since);
    expect(fresh).toContain("Working tree: clean when written");
    expect(fresh.join("\n")).toContain("Since then: derived .ai/local/state/handovers/b.md (1m ago, episode s-2)");
    expect(fresh.join("\n")).toContain("Run the tests.");
    const stale = resolvedLines(
      "handover",
      { ...base, history: true, freshness: "stale", next_action_withheld: "It is stale: withheld." },
      undefined,
    );
    expect(stale.join("\n")).not.toContain("Run the tests.");
    expect(stale.at(-1)).toBe("It is stale: withheld.");
    const shown = shownLines(
      "checkpoint",
      "c.md",
      { ...base, branch: "main", seq: 1, schema: "checkpoint/v1" } as never,
      "x\n\n",
    );
    expect(shown[0]).toBe("Checkpoint: c.md");
    expect(shown.at(-1)).toBe("x");
  });
});
