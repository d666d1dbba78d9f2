// The real Codex CLI 0.171.0, installed from npm, run headless (`codex exec`) against the
// Responses-API mock in a supervised repository: what its hooks make majordomus write, and what
// reaches the model. Run with `npm run test:clients` (CI runs it too); `npm test` skips it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { closedTexts, frontField, layered, ledger, mdFiles } from "../support/layered.ts";
import { statusRow } from "../support/capture.ts";
import { BIN } from "../support/env.ts";
import { CodexRig, developer } from "./codex-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

describe.skipIf(!ENABLED)("Codex CLI 0.171.0 against the mock API", () => {
  test(
    "a run opens and closes an episode with its records and prompt; the agent's own handover reaches the next run's model request",
    async () => {
      const next = "Port the INI reader to the new tokenizer; start with test/ini.test.ts.";
      const body = `# Objective\nA config parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${next}\n`;
      let asked = false;
      using rig = new CodexRig({
        mock: {
          // The first request: the agent writes its handover with Codex's shell tool.
          call: () => {
            if (asked) return undefined;
            asked = true;
            // Codex's shell is a login shell (its PATH is the profile's): the binary by its path.
            return { name: "exec_command", arguments: { cmd: `${BIN} handover <<'EOF'\n${body}EOF` } };
          },
        },
      });
      rig.trust();
      const first = await rig.run(["work on the parser"]);
      expect(first).toMatchObject({ status: 0, timedOut: false });
      expect(asked).toBe(true);
      const records = closedTexts(rig.repo);
      expect(records.length).toBe(1);
      expect(frontField(records[0]!, "provider")).toBe("codex");
      // Codex's end reason is always `other`; a received end is the client closing the session.
      expect(frontField(records[0]!, "outcome")).toBe("closed");
      expect(mdFiles(rig.repo, ".ai/local/state/checkpoints").length).toBe(1);
      expect(
        ledger(rig.repo)
          .filter((e) => e.event === "task.handed_over")
          .map((e) => e.how),
      ).toEqual(["authored", "derived"]);
      const prompts = readdirSync(rig.repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));
      expect(prompts.length).toBe(1);
      expect(JSON.parse(readFileSync(rig.repo.path(".ai/local/prompts", prompts[0]!), "utf8"))).toMatchObject({
        text: "work on the parser",
        provider: "codex",
        episode_link: "open",
      });
      // The briefing reached the model as a developer message, before the prompt.
      expect(developer(rig.mock.requests()[0]!.body)).toContain("majordomus — what this repository already knows");

      const second = await rig.run(["what next?"]);
      expect(second.status).toBe(0);
      const request = developer(rig.mock.requests().at(-1)!.body);
      expect(request).toMatch(
        /Handover \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, exact, fresh, 0m old\)/,
      );
      expect(request).toContain(`Its Next Action, in its author's own words, quoted:\n> ${next}`);
      expect(closedTexts(rig.repo).length).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "a real compaction gives exactly one derived checkpoint in the open episode; the turn goes on in the same episode",
    async () => {
      let called = false;
      using rig = new CodexRig({
        config: "model_auto_compact_token_limit = 1000",
        mock: {
          // A tool call first, so the turn needs a follow-up request: Codex compacts before it.
          call: (request) => {
            if (called || String(request.headers["x-codex-turn-metadata"] ?? "").includes("compaction"))
              return undefined;
            called = true;
            return { name: "exec_command", arguments: { cmd: "true" } };
          },
          reply: "ok",
          totalTokens: () => 200_000,
        },
      });
      rig.trust();
      const run = await rig.run(["say ok"]);
      expect(run.status).toBe(0);
      expect(
        rig.mock
          .requests()
          .some((r) => String(r.headers["x-codex-turn-metadata"] ?? "").includes('"request_kind":"compaction"')),
      ).toBe(true);
      const lines = ledger(rig.repo);
      const received = lines
        .filter((e) => e.event === "provider.event.received")
        .map((e) => `${e.provider_event}:${e.source ?? e.trigger ?? ""}`);
      expect(received).toContain("compact:");
      expect(received).toContain("start:compact");
      // One checkpoint derived for the compaction (and the end's closing one), all in one episode.
      const checkpoints = lines.filter((e) => e.event === "task.checkpoint");
      expect(checkpoints.filter((e) => e.closing !== true).length).toBe(1);
      expect(lines.filter((e) => e.event === "session.started").length).toBe(1);
      expect(new Set(checkpoints.map((e) => e.session)).size).toBe(1);
      expect(closedTexts(rig.repo).length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "a resume is the same client session: each run's episode names it, and the resumed run opens one episode",
    async () => {
      using rig = new CodexRig();
      rig.trust();
      expect((await rig.run(["say ok"])).status).toBe(0);
      expect((await rig.run(["resume", "--last", "again"])).status).toBe(0);
      const started = ledger(rig.repo).filter(
        (e) => e.event === "provider.event.received" && e.provider_event === "start",
      );
      expect(started.map((e) => e.source)).toEqual(["startup", "resume"]);
      expect(new Set(started.map((e) => e.provider_session)).size).toBe(1);
      const records = closedTexts(rig.repo);
      // The first run's end closed its episode; the resumed run (the same client session) opened one episode of it.
      expect(ledger(rig.repo).filter((e) => e.event === "session.started").length).toBe(2);
      const id = String(started[0]!.provider_session);
      expect(records.map((r) => frontField(r, "provider_session"))).toEqual([id, id]);
    },
    TIMEOUT,
  );

  test(
    "untrusted hooks: capture status says Codex will not run them, and a run writes nothing",
    async () => {
      using rig = new CodexRig();
      expect(rig.installed).toContain("codex will not run these hooks yet");
      const row = statusRow(rig.repo, "codex", "session", rig.env());
      expect(row.state).toBe("wired");
      expect(row.reason).toContain("Codex CLI will not run it");
      expect((await rig.run(["say ok"])).status).toBe(0);
      expect(ledger(rig.repo).some((e) => e.event === "provider.event.received")).toBe(false);
      expect(closedTexts(rig.repo)).toEqual([]);
      // Trusted as a person would: now verified.
      rig.trust();
      expect(statusRow(rig.repo, "codex", "session", rig.env()).state).toBe("verified");
    },
    TIMEOUT,
  );

  test(
    "a foreign .codex/hooks.json stays byte-identical (install refuses, exit 15), and the client still runs",
    async () => {
      const repo = layered();
      mkdirSync(repo.path(".codex"));
      const mine = '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}\n';
      writeFileSync(repo.path(".codex/hooks.json"), mine);
      using rig = new CodexRig({ repo, install: false });
      const install = repo.mj(["capture", "install", "--provider", "codex"], { env: rig.env() });
      expect(install.status).toBe(15);
      expect(install.stderr).toContain('"SessionStart": [');
      expect(readFileSync(repo.path(".codex/hooks.json"), "utf8")).toBe(mine);
      const run = await rig.run(["say ok"]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("ok");
      expect(readFileSync(repo.path(".codex/hooks.json"), "utf8")).toBe(mine);
    },
    TIMEOUT,
  );
});
