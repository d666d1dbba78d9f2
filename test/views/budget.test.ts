// The one budget, as a property over generated layers, in process: any mix of parts at any size,
// long and short Next Actions, every client's channel. The Next Action's first line always
// arrives, it is whole whenever it fits beside the other parts' short forms, it is cut only once
// every other part has shrunk, and every answer stays inside its budget.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { Facts } from "../../src/facts/facts.ts";
import type { Budget } from "../../src/lib/fit.ts";
import { sizeOf } from "../../src/lib/fit.ts";
import type { ClaimLabel, ClaimState } from "../../src/records/claims.ts";
import { boot } from "../../src/views/boot.ts";
import { briefing, briefingParts, BRIEFING_PARTS } from "../../src/views/briefing.ts";
import { contextView } from "../../src/views/context.ts";
import { continuityView, CONTINUITY_CHARS } from "../../src/views/continuity.ts";
import { AT, clean, facts, POLICY, record } from "../support/facts.ts";
import { quoted } from "../../src/lib/quote.ts";
import { PROJECT } from "../support/env.ts";

/** A small seeded generator, so a failing case can be named by its seed and run again. */
function random(seed: number) {
  // Spread small seeds over the state (xorshift's first outputs from a small seed are small too).
  let s = Math.imul(seed, 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 8; i++) next();
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]) => items[int(0, items.length - 1)]!;
  const words = [
    "migrate",
    "the",
    "ledger",
    "module",
    "src/a.ts",
    "čtečka",
    "😀",
    "`npm test`",
    "## majordomus",
    "```",
  ];
  const text = (max: number) => {
    const n = int(1, max);
    let out = "";
    while (out.length < n) out += `${pick(words)} `;
    return out.slice(0, n);
  };
  return { next, int, pick, text };
}

const STATES: ClaimState[] = ["deleted", "changed", "lines_changed", "moved", "unchanged", "never_existed"];

/** Later sessions that acted on the Next Action: part of what it names, or all of it. */
function acted(r: ReturnType<typeof random>): NonNullable<Facts["handover"]["acted"]> {
  const named = Array.from({ length: r.pick([1, 4, 30]) }, (_, i) => `src/${"deep/".repeat(r.int(0, 20))}n${i}.ts`);
  const done = named.slice(0, r.int(1, named.length));
  return {
    sessions: r.int(1, 5),
    session_id: "s-20261130110000-0123456789ab",
    provider: "claude-code",
    closed_at: AT.toISOString(),
    state: done.length === named.length ? "acted" : "partly",
    named,
    acted_on: done,
    record: ".ai/repo/sessions/20261130T110000Z--s-20261130110000-0123456789ab.md",
    handovers: r.next() < 0.5 ? [".ai/local/state/handovers/later.md"] : [],
  };
}

/** A layer at random: each part absent, ordinary, or at its largest. */
function layer(seed: number): Facts {
  const r = random(seed);
  const big = () => r.next() < 0.3;
  const steps = Array.from({ length: r.pick([1, 3, 44, 150, 300, 400]) }, (_, i) =>
    r.next() < 0.05 ? "```" : `${i + 1}. ${r.text(big() ? 400 : 120)}`,
  );
  const labels: ClaimLabel[] = Array.from({ length: r.pick([0, 3, 24]) }, (_, i) => ({
    cited: `src/${"deep/".repeat(r.int(0, 30))}module-${i}.ts:${i + 1}`,
    kind: "path",
    state: r.pick(STATES),
    label: r.text(80),
  }));
  const live = Array.from({ length: r.pick([0, 0, 2, 5]) }, (_, i) => ({
    session_id: `s-2026113011${String(i).padStart(4, "0")}-0123456789ab`,
    provider: "claude-code",
    provider_session: "x".repeat(r.int(1, 128)),
    opened_at: AT.toISOString(),
    last_seen: AT.toISOString(),
    worktree: `/w/${"a".repeat(r.int(1, 300))}`,
    here: r.next() < 0.5,
    task: {
      id: "t-1",
      task: clean(r.text(big() ? 3_000 : 60)),
      scope: Array.from({ length: r.int(1, 40) }, (_, j) => `src/p${j}`),
    },
    touched: Array.from({ length: r.int(0, 20) }, (_, j) => `src/t${j}.ts`),
  }));
  return facts({
    task:
      r.next() < 0.7
        ? {
            id: "t-1",
            task: clean(r.text(big() ? 3_000 : 80)),
            profile: "implementation",
            owner: "dev",
            scope: Array.from({ length: r.int(1, big() ? 200 : 4) }, (_, i) => `src/scope-${i}`),
            started_at: "2026-11-30T10:00:00.000Z",
            checkpoint_at: "2026-11-30T11:00:00.000Z",
            outcome: "active",
            repository_id: "r-1",
            worktree: "/r",
            branch: "main",
            head: "b".repeat(40),
            working_tree: "clean",
          }
        : undefined,
    questions: {
      path: "/r/q.md",
      open: Array.from({ length: r.pick([0, 3, 40]) }, (_, i) => ({
        text: r.text(big() ? 2_000 : 100),
        taskId: "t-1",
        opened: "2026-11-30",
        line: i,
      })),
      resolved: [],
      malformed: [],
    } as Facts["questions"],
    snapshot: {
      workingTree: "dirty",
      changed: Array.from({ length: r.int(0, 50) }, (_, i) => clean(`src/c${i}.ts`)),
      ownRecords: Array.from({ length: r.int(0, 30) }, (_, i) => `.ai/repo/sessions/r${i}.md`),
    },
    live,
    untrusted: { dir: ".ai/local", files: r.next() < 0.2 ? [".ai/local/state/current.yaml"] : [] },
    handover: {
      skipped: 0,
      view: record({
        next_action: steps,
        ...(r.next() < 0.6
          ? { objective: [r.text(200)], current_state: Array.from({ length: r.pick([1, 5, 40]) }, () => r.text(150)) }
          : {}),
        body: `# Next Action\n${steps.join("\n")}\n`,
        ...(labels.length ? { claims: { labels, all_gone: false } } : {}),
        ...(r.next() < 0.3
          ? { shared: { author: r.text(100), checkout: "c-0123456789abcdef", shared_at: AT.toISOString() } }
          : {}),
      }),
      since: r.next() < 0.4 ? record({ how: "derived", path: ".ai/local/state/handovers/later.md" }) : undefined,
      ...(r.next() < 0.3 ? { acted: acted(r) } : {}),
    },
    policy: {
      path: "p",
      policy: { ...POLICY, session: { ...POLICY.session, briefing_budget_lines: r.pick([5, 20, 60, 200]) } },
    },
  });
}

/** Every start channel the providers table declares, and the boot's. */
const CHANNELS: Budget[] = Object.values(
  (
    parse(readFileSync(join(PROJECT, "share/providers.yaml"), "utf8")) as {
      providers: Record<string, { hooks?: { budgets: Record<string, Budget> } }>;
    }
  ).providers,
).flatMap((p) =>
  Object.entries(p.hooks?.budgets ?? {}).map(([, b]) => ({ chars: b.chars, counts: b.counts, channel: b.channel })),
);

const CASES = 400;
const measured = (lines: string[], b: Budget) => sizeOf(lines, b.counts);
/** The parts that may yield to nothing (not required) and hold lines here: every one is left out before a cut. */
const yielding = (f: Facts) =>
  BRIEFING_PARTS.filter((row) => !row.required && (row.write(f, row.shown)?.lines.length ?? 0) > 0).map(
    (row) => row.id,
  );
/** The beginning of a line as a test looks for it: ten characters, never half a surrogate pair, no trailing space. */
const start = (line: string) =>
  line
    .slice(0, 10)
    .replace(/[\uD800-\uDBFF]$/, "")
    .trimEnd();

describe("the one budget, over generated layers", () => {
  test("every part of the briefing has its place in the table: never left out, or a worth that orders what yields first", () => {
    for (const row of BRIEFING_PARTS)
      expect({ id: row.id, placed: row.required === true || row.worth !== undefined }).toEqual({
        id: row.id,
        placed: true,
      });
    // A part that is not a row of the table cannot reach the briefing: what it prints is the table's parts and quotes.
    const f = layer(7);
    const { parts } = briefingParts(f);
    expect(parts.every((p) => BRIEFING_PARTS.some((row) => row.id === p.id))).toBe(true);
  });

  test("the agent's account yields before its Next Action and after every part of ours", () => {
    let both = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const f = layer(seed);
      if (!f.handover.view?.current_state) continue;
      for (const b of CHANNELS) {
        const out = briefing(f, b);
        const text = out.lines.join("\n");
        const account = text.includes("Where it stands,");
        // Shown, whole or in part: no part of ours was left out before it... unless the room was the account's own.
        if (!account)
          expect({
            seed,
            channel: b.channel,
            left: out.cuts.some((c) => c.what === "left out") || out.withheld > 0,
          }).toEqual({ seed, channel: b.channel, left: true });
        // A part of ours shown beside a cut account: never (it yields first).
        if (account && text.includes("of its account quoted to leave room"))
          expect({ seed, ours: out.cuts.filter((c) => c.what === "left out").length }).toEqual({
            seed,
            ours: yielding(f).length,
          });
        if (account && out.withheld === 0) both++;
      }
    }
    expect(both).toBeGreaterThan(100);
  });

  test("the briefing: inside every channel, the Next Action first, whole when it fits, cut only after everything else shrank", () => {
    expect(CHANNELS.length).toBeGreaterThanOrEqual(7);
    let cut = 0;
    let whole = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const f = layer(seed);
      const steps = f.handover.view!.next_action!;
      for (const b of CHANNELS) {
        const out = briefing(f, b);
        const text = out.lines.join("\n");
        expect({ seed, channel: b.channel, size: measured(out.lines, b) <= b.chars }).toEqual({
          seed,
          channel: b.channel,
          size: true,
        });
        // Its first line (or the beginning of it) always arrives, quoted.
        expect({ seed, first: text.includes(`> ${start(steps[0]!)}`) }).toEqual({ seed, first: true });
        if (out.withheld === 0) {
          whole++;
          expect(out.lines.filter((l) => l.startsWith("> ") || l === ">").length).toBeGreaterThanOrEqual(steps.length);
        } else {
          cut++;
          // Cut only once every part of ours has yielded to nothing (counted in the closing pointer), and the agent's
          // account too; said in one notice with its command.
          expect({ seed, left: out.shortened.filter((id) => yielding(f).includes(id)).sort() }).toEqual({
            seed,
            left: yielding(f).sort(),
          });
          expect(out.cuts.filter((c) => c.what === "left out").length).toBe(yielding(f).length);
          expect(text).not.toContain("Where it stands,");
          expect(text).toMatch(
            /… The Next Action is cut here: \d+ of \d+ line\(s\) quoted[^\n]*prints the whole record\./,
          );
          // One notice: what else was left out is said at its end, never in a paragraph of its own.
          expect({ seed, notices: text.match(/Shortened to fit|is cut here|Cut here to fit/g)?.length }).toEqual({
            seed,
            notices: 1,
          });
          if (yielding(f).length > 0)
            expect(text).toMatch(/prints the whole record\. Besides it: [^\n]*\d+ more part\(s\) left out/);
        }
        // Nothing a stranger wrote opens a line of its own.
        expect(out.lines.filter((l) => l.startsWith("## majordomus") && l !== out.lines[0])).toEqual([]);
      }
    }
    // The generator reaches both outcomes.
    expect(cut).toBeGreaterThan(100);
    expect(whole).toBeGreaterThan(100);
  });

  test("whole whenever it fits: a Next Action is cut only when, whole, it would not fit beside the other parts at their shortest", () => {
    let checked = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const f = layer(seed);
      for (const b of CHANNELS) {
        const out = briefing(f, b);
        if (out.withheld === 0 || out.cuts.some((c) => c.part === "the text")) continue;
        checked++;
        // The frame it was cut in: the header, the record's labels and the closing pointer (everything else left out).
        const at = out.lines.findIndex((l) => l.startsWith("Its Next Action,"));
        const frame = [...out.lines.slice(0, at + 1), ...out.lines.slice(at + out.quoted)];
        const whole = [
          ...out.lines.slice(0, at + 1),
          ...f.handover.view!.next_action!.map(quoted),
          ...out.lines.slice(at + out.quoted),
        ];
        expect({ seed, channel: b.channel, fitsWhole: measured(whole, b) <= b.chars }).toEqual({
          seed,
          channel: b.channel,
          fitsWhole: false,
        });
        expect(frame.length + out.quoted - 1).toBe(out.lines.length);
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test("the boot, context and the continuity answer: inside their budgets, the Next Action's first line delivered", () => {
    for (let seed = 1; seed <= CASES / 4; seed++) {
      const f = layer(seed);
      const first = f.handover.view!.next_action![0]!;
      const b = { chars: 24_000, counts: "utf16" as const, channel: "the fresh-window boot" };
      const booted = boot(f, { id: "s-1:1", ordinal: 1 }, b);
      expect({ seed, boot: measured(booted, b) <= b.chars }).toEqual({ seed, boot: true });
      expect(booted.join("\n")).toContain(`> ${start(first)}`);
      const c = contextView(f);
      expect({ seed, context: sizeOf(c.lines, "utf16") <= 18_000, over: c.over }).toEqual({
        seed,
        context: true,
        over: false,
      });
      expect(c.lines.join("\n")).toContain(`> ${start(first)}`);
      const answer = continuityView({ facts: f, open: [], closed: [], openProblems: [] });
      expect({ seed, continuity: JSON.stringify(answer, null, 2).length <= CONTINUITY_CHARS }).toEqual({
        seed,
        continuity: true,
      });
      expect(answer.handover!.next_action).toStartWith(start(first));
    }
  });
});
