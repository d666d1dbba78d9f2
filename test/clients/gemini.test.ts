// The real Gemini CLI 0.61.0, installed from npm, run headless (`gemini -p`) against the Gemini-API
// mock in a supervised repository: what its hooks make majordomus write, and what reaches the model.
// Run with `npm run test:clients` (CI runs it too); `npm test` skips it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { closedTexts, frontField, layered, ledger, mdFiles } from "../support/layered.ts";
import { statusRow } from "../support/capture.ts";
import { BIN } from "../support/env.ts";
import { GeminiRig } from "./gemini-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

describe.skipIf(!ENABLED)("Gemini CLI 0.61.0 against the mock API", () => {
  test(
    "a run opens and closes an episode with its records and the person's prompt; the agent's own handover reaches the next run's request, with its labels",
    async () => {
      const next = "Wire the tokenizer into src/ini.ts.";
      const body = `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${next}\n`;
      let asked = false;
      using rig = new GeminiRig({
        mock: {
          // With --yolo the model is offered the shell: the agent writes its handover with it, once.
          call: (request) => {
            if (asked || !JSON.stringify(request.body?.tools ?? []).includes("run_shell_command")) return undefined;
            asked = true;
            return {
              name: "run_shell_command",
              args: { command: `${BIN} handover <<'EOF'\n${body}EOF`, description: "Write my handover" },
            };
          },
        },
      });
      rig.trust();
      const first = await rig.run(["--yolo", "-p", "work on the parser"]);
      expect(first).toMatchObject({ status: 0, timedOut: false });
      expect(asked).toBe(true);
      const records = closedTexts(rig.repo);
      expect(records.length).toBe(1);
      expect(frontField(records[0]!, "provider")).toBe("gemini");
      expect(frontField(records[0]!, "outcome")).toBe("closed");
      expect(records[0]).toContain("(client reason: exit)");
      expect(mdFiles(rig.repo, ".ai/local/state/checkpoints").length).toBe(1);
      const lines = ledger(rig.repo);
      expect(lines.filter((e) => e.event === "task.handed_over").map((e) => e.how)).toEqual(["authored", "derived"]);
      // The prompt as the person wrote it: what the start hook put in front of it is not archived.
      const prompts = readdirSync(rig.repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));
      expect(prompts.length).toBe(1);
      expect(JSON.parse(readFileSync(rig.repo.path(".ai/local/prompts", prompts[0]!), "utf8"))).toMatchObject({
        text: "work on the parser",
        provider: "gemini",
        episode_link: "open",
      });
      // The briefing reached the model inside <hook_context>.
      expect(rig.mock.turns()[0]!.text).toContain("<hook_context>## majordomus — what this repository already knows");
      // PreCompress fired (it does on every check) and derived nothing: only the end's closing checkpoint.
      expect(lines.some((e) => e.event === "provider.event.received" && e.provider_event === "compact")).toBe(true);
      expect(lines.filter((e) => e.event === "task.checkpoint").every((e) => e.closing === true)).toBe(true);

      const second = await rig.run(["-p", "what next?"]);
      expect(second.status).toBe(0);
      const request = rig.mock.turns().at(-1)!.text;
      expect(request).toMatch(
        /Handover \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, exact, fresh, 0m old\)/,
      );
      // Gemini escapes <, > and & in what a hook adds: the quote mark arrives as &gt;.
      expect(request.includes(`&gt; ${next}`)).toBe(true);
      expect(closedTexts(rig.repo).length).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "a real compression (a resumed turn past the threshold) gives exactly one derived checkpoint, in the episode; turns without one give none",
    async () => {
      let n = 0;
      let big = true;
      using rig = new GeminiRig({
        mock: {
          // Each turn's first request calls a read-only tool, so the turn has a follow-up the CLI may compress before.
          call: () => (n++ % 2 === 0 ? { name: "list_directory", args: { dir_path: "." } } : undefined),
          promptTokens: () => (big ? 600_000 : 100),
        },
      });
      rig.trust();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect((await rig.run(["--resume", "latest", "-p", "again"])).status).toBe(0);
      // The client did compress (the mock was asked for a state snapshot) ...
      expect(rig.mock.requests().some((r) => r.text.includes("state_snapshot"))).toBe(true);
      const lines = ledger(rig.repo);
      // ... PreCompress fired on every check, and exactly one checkpoint answers the one compression.
      expect(
        lines.filter((e) => e.event === "provider.event.received" && e.provider_event === "compact").length,
      ).toBeGreaterThan(1);
      const compression = lines.filter((e) => e.event === "task.checkpoint" && e.closing !== true);
      expect(compression.length).toBe(1);
      expect(compression[0]!.compressions).toBe(1);
      expect(compression[0]!.session).toMatch(/^s-/);
      // It came before that episode's close.
      const closed = lines.findIndex((e) => e.event === "session.closed" && e.session_id === compression[0]!.session);
      expect(lines.indexOf(compression[0]!)).toBeLessThan(closed);
      // Resumed again, under the threshold: the transcript still shows that one compression, already answered.
      big = false;
      expect((await rig.run(["--resume", "latest", "-p", "and again"])).status).toBe(0);
      expect(ledger(rig.repo).filter((e) => e.event === "task.checkpoint" && e.closing !== true).length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "a resume is the same client session",
    async () => {
      using rig = new GeminiRig();
      rig.trust();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect((await rig.run(["--resume", "latest", "-p", "again"])).status).toBe(0);
      const started = ledger(rig.repo).filter(
        (e) => e.event === "provider.event.received" && e.provider_event === "start",
      );
      expect(started.map((e) => e.source)).toEqual(["startup", "resume"]);
      expect(new Set(started.map((e) => e.provider_session)).size).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "an untrusted folder: capture status says Gemini will not run the hooks, and a run writes nothing",
    async () => {
      using rig = new GeminiRig();
      expect(rig.installed).toContain("gemini will not run these hooks yet");
      const row = statusRow(rig.repo, "gemini", "session", rig.env());
      expect(row.state).toBe("wired");
      expect(row.reason).toContain("Gemini CLI will not run it");
      // Headless Gemini refuses an untrusted folder outright (exit 55); majordomus wrote nothing.
      const run = await rig.run(["-p", "say ok"]);
      expect(run.status).not.toBe(0);
      expect(ledger(rig.repo).some((e) => e.event === "provider.event.received")).toBe(false);
      rig.trust();
      expect(statusRow(rig.repo, "gemini", "session", rig.env()).state).toBe("verified");
    },
    TIMEOUT,
  );

  test(
    "a foreign .gemini/settings.json stays byte-identical (install refuses, exit 15), and the client still runs",
    async () => {
      const repo = layered();
      mkdirSync(repo.path(".gemini"));
      const mine = '{"ui":{"theme":"Default"}}\n';
      writeFileSync(repo.path(".gemini/settings.json"), mine);
      using rig = new GeminiRig({ repo, install: false });
      rig.trust();
      const install = repo.mj(["capture", "install", "--provider", "gemini"], { env: rig.env() });
      expect(install.status).toBe(15);
      expect(readFileSync(repo.path(".gemini/settings.json"), "utf8")).toBe(mine);
      const run = await rig.run(["-p", "say ok"]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("ok");
      expect(readFileSync(repo.path(".gemini/settings.json"), "utf8")).toBe(mine);
    },
    TIMEOUT,
  );
});
