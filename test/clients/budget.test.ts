// What the model actually receives when the account is long: the real Claude Code 2.1.332, Codex
// 0.171.0 and Gemini 0.61.0 against their mock APIs, on a busy layer (an active task with a scope,
// three open questions). A 44-step Next Action reaches the model whole; a 120-step one reaches it cut,
// with the notice and the command for the rest, and never collapsed into a client's preview. The same
// for the fresh-window boot of a long handover. Run with `npm run test:clients`.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { layered, ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";
import { ClaudeRig } from "./rig.ts";
import { CodexRig, developer } from "./codex-rig.ts";
import { GeminiRig } from "./gemini-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

/** A migration plan's steps, each about 190 characters, numbered so a test can count what arrived. */
export const planSteps = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${i + 1}. Migrate module m${i + 1} of the legacy billing package to the new ledger API; run its tests, then commit with a message naming the module and the API it now calls.`,
  );

/** Steps that each name the file they change: a Next Action whose every line is a citation. */
export const citingSteps = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${i + 1}. Migrate module m${i + 1} of the legacy billing package, src/billing/m${i + 1}.ts, to the new ledger API; run its tests, then commit with a message naming the module and the API it now calls.`,
  );

/** A busy layer: an active task with a scope, three open questions, and the agent's handover with an n-step Next Action. */
export function busyLayer(n: number, repo: Repo = layered(), steps: string[] = planSteps(n)): Repo {
  ok(
    repo.mj([
      "start",
      "migrate the billing package to the ledger API",
      "--scope",
      "src/billing,src/ledger,test/billing",
    ]),
  );
  for (const q of [
    "Does the old adapter stay for one release?",
    "Who owns the ledger schema migration?",
    "Is rounding half-even everywhere?",
  ])
    ok(repo.mj(["question", "add", q]));
  ok(
    repo.mj(["handover"], {
      input: `# Objective\nThe billing package on the ledger API.\n\n# Current State\nThe ledger client is in place.\n\n# Next Action\n${steps.join("\n")}\n`,
    }),
  );
  return repo;
}

/**
 * The busiest layer the issue describes: the files each step cites are in the tree, the handover
 * cites 44 of them, and a derived record was written after it (a session ended since).
 */
function citingLayer(n: number, steps: string[]): Repo {
  const repo = layered();
  for (let i = 1; i <= 44; i++) repo.commit(`m${i}`, `src/billing/m${i}.ts`, `export const m${i} = ${i};\n`);
  busyLayer(n, repo, steps);
  ok(repo.mj(["handover", "--derive"]));
  return repo;
}

/** Which of the plan's steps a text carries, by number. */
const stepsIn = (text: string) =>
  new Set([...text.matchAll(/> (\d+)\. Migrate module m\1 /g)].map((m) => Number(m[1])));
/** Which short steps a text carries, by number. */
const shortStepsIn = (text: string) =>
  new Set([...text.matchAll(/> (\d+)\. Check box \1\./g)].map((m) => Number(m[1])));
const CUT =
  /… The Next Action is cut here: (\d+) of 120 line\(s\) quoted, (\d+) left out to fit [^\n]*`majordomus handover --show (\S+\.md)` prints the whole record\./;
describe.skipIf(!ENABLED)("the account reaches the model whole, or cut and said so", () => {
  test(
    "Claude Code: a 44-step Next Action whose every step cites a file, on a busy layer with a record since, reaches the model whole, the citations summarised",
    async () => {
      using rig = new ClaudeRig({ repo: citingLayer(44, citingSteps(44)), wire: true });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages()[0]!.text;
      expect(text).not.toContain("persisted-output");
      expect(stepsIn(text).size).toBe(44);
      expect(text).not.toContain("The Next Action is cut here");
      expect(text).toContain("BLOCKED: 3 open question(s)");
      expect(text).toMatch(/It cites 24, checked now: 24 unchanged; `majordomus handover --claims` lists each\./);
      expect(text).toContain("Since then: a derived record");
    },
    TIMEOUT,
  );

  test(
    "Claude Code: the 44-step Next Action on the busiest layer (three cited files never existed, two closed records not committed, records since) reaches the model whole; our parts yield first",
    async () => {
      const repo = layered();
      // m42 to m44 are cited and never existed.
      for (let i = 1; i <= 41; i++) repo.commit(`m${i}`, `src/billing/m${i}.ts`, `export const m${i} = ${i};\n`);
      using rig = new ClaudeRig({ repo: busyLayer(44, repo, citingSteps(44)), wire: true });
      // Two sessions end (two closed records git does not have yet), then the one that reads the briefing.
      for (let i = 0; i < 2; i++) expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(rig.repo.git("status", "--short", ".ai/repo/sessions").trim().split("\n").length).toBe(2);
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages().at(-1)!.text;
      expect(stepsIn(text).size).toBe(44);
      expect(text).not.toContain("The Next Action is cut here");
      expect(text).toContain("BLOCKED: 3 open question(s)");
    },
    TIMEOUT,
  );

  test(
    "Claude Code: a 150-step Next Action of short steps (about 2,800 characters) reaches the model whole: the line budget never cuts the agent's words",
    async () => {
      const steps = Array.from({ length: 150 }, (_, i) => `${i + 1}. Check box ${i + 1}.`);
      expect(steps.join("\n").length).toBeGreaterThan(2_500);
      using rig = new ClaudeRig({ repo: citingLayer(150, steps), wire: true });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages()[0]!.text;
      expect(shortStepsIn(text).size).toBe(150);
      expect(text).not.toContain("The Next Action is cut here");
    },
    TIMEOUT,
  );

  test(
    "Claude Code: a 120-step Next Action of long steps (about 25,000 characters) reaches the model cut, with one notice and the command that prints it",
    async () => {
      const steps = planSteps(120).map((s) => `${s} Keep the old adapter until the release after.`);
      expect(steps.join("\n").length).toBeGreaterThan(24_000);
      using rig = new ClaudeRig({ repo: citingLayer(120, steps), wire: true });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages()[0]!.text;
      expect(text).not.toContain("persisted-output");
      const cut = CUT.exec(text);
      expect(cut).not.toBeNull();
      expect(stepsIn(text).size).toBe(Number(cut![1]));
      // One notice: no closing paragraph of the parts that yielded besides it.
      expect(text.match(/Shortened to fit|is cut here/g)?.length).toBe(1);
      const shown = ok(rig.repo.mj(["handover", "--show", cut![3]!])).stdout;
      expect(shown).toContain("120. Migrate module m120 ");
    },
    TIMEOUT,
  );

  test(
    "Claude Code: a 44-step Next Action on a busy layer reaches the model whole, inline",
    async () => {
      using rig = new ClaudeRig({ repo: busyLayer(44), wire: true });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages()[0]!.text;
      expect(text).not.toContain("persisted-output");
      expect(stepsIn(text).size).toBe(44);
      expect(text).toContain("BLOCKED: 3 open question(s)");
    },
    TIMEOUT,
  );

  test(
    "Claude Code: a 120-step Next Action reaches the model cut, with the notice and the command, never collapsed; the command prints the rest",
    async () => {
      using rig = new ClaudeRig({ repo: busyLayer(120), wire: true });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const text = rig.mock.messages()[0]!.text;
      expect(text).not.toContain("persisted-output");
      const cut = CUT.exec(text);
      expect(cut).not.toBeNull();
      const kept = Number(cut![1]);
      expect(stepsIn(text).size).toBe(kept);
      expect(kept + Number(cut![2])).toBe(120);
      // The command the notice names prints every step.
      const shown = ok(rig.repo.mj(["handover", "--show", cut![3]!])).stdout;
      expect(shown).toContain("120. Migrate module m120 ");
    },
    TIMEOUT,
  );

  test(
    "Codex: the 120-step Next Action arrives cut by majordomus within 10,000 bytes, never truncated by Codex; a 44-step one whole",
    async () => {
      for (const n of [120, 44]) {
        using rig = new CodexRig({ repo: busyLayer(n) });
        rig.trust();
        expect((await rig.run(["say ok"])).status).toBe(0);
        const text = developer(rig.mock.requests()[0]!.body);
        expect(text).not.toContain("tokens truncated");
        expect(text).not.toContain("Full hook output saved to");
        const cut = CUT.exec(text);
        if (n === 44) expect([cut, stepsIn(text).size]).toEqual([null, 44]);
        else expect(stepsIn(text).size).toBe(Number(cut![1]));
      }
    },
    TIMEOUT,
  );

  test(
    "Gemini: the 120-step Next Action arrives cut to the same budget, with the notice; a 44-step one whole",
    async () => {
      for (const [n, whole] of [
        [120, false],
        [44, true],
      ] as const) {
        using rig = new GeminiRig({ repo: busyLayer(n) });
        rig.trust();
        expect((await rig.run(["-p", "say ok"])).status).toBe(0);
        const text = rig.mock.turns()[0]!.text;
        const context = /<hook_context>([\s\S]*?)<\/hook_context>/.exec(text)![1]!;
        expect(context.length).toBeLessThanOrEqual(9_500 * 1.2);
        if (whole) expect(stepsIn(context.replaceAll("&gt;", ">")).size).toBe(44);
        else expect(CUT.exec(context.replaceAll("&gt;", ">"))).not.toBeNull();
      }
    },
    TIMEOUT,
  );

  test(
    "the fresh-window boot of a long handover reaches the model within its budget, cut with the notice and the command",
    async () => {
      const repo = busyLayer(400);
      const policy = repo.path(".ai/repo/policy.yaml");
      writeFileSync(policy, readFileSync(policy, "utf8").replace(/^session:\n/m, "session:\n  fresh_window: true\n"));
      repo.git("commit", "-q", "-am", "Ask for the fresh window");
      writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
      let refused = false;
      using rig = new ClaudeRig({
        repo,
        wire: true,
        mock: {
          // A prompt-too-long reply makes the client compact; the mod answers with the boot.
          error: (request) => {
            if (refused || !request.text.includes("next part please")) return undefined;
            refused = true;
            return {
              status: 400,
              type: "invalid_request_error",
              message: "prompt is too long: 210000 tokens > 200000 maximum",
            };
          },
        },
      });
      rig.trust();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect((await rig.run(["-p", "-c", "next part please"])).status).toBe(0);
      expect(refused).toBe(true);
      const after = rig.mock.messages().at(-1)!.text;
      const start = after.indexOf("# majordomus fresh window s-");
      expect(start).toBeGreaterThan(-1);
      const end = after.indexOf("then end your turn.", start);
      const bootText = after.slice(start, end);
      expect(bootText.length).toBeLessThanOrEqual(24_000);
      expect(bootText).toMatch(
        /… The handover is cut here: \d+ of \d+ line\(s\) quoted[^\n]* `majordomus handover --show \S+\.md` prints the whole record\./,
      );
    },
    TIMEOUT,
  );
});
