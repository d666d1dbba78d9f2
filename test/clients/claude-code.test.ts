// The real Claude Code 2.1.332, installed from npm, run headless against the mock API in a
// supervised repository: what its hooks make majordomus write, and what reaches the model.
// Run with `npm run test:clients` (CI runs it too); `npm test` skips it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { closedTexts, frontField, layered, ledger, mdFiles, ok } from "../support/layered.ts";
import { statusRow } from "../support/capture.ts";
import { ClaudeRig, TmuxSession } from "./rig.ts";
import type { MockOptions } from "./mock-anthropic.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

/**
 * A mock whose answer to the first request that offers the Bash tool is the agent writing `body`
 * as its handover (`majordomus handover`), as a model that decided to hand over would.
 */
function writesHandover(body: string): { mock: MockOptions; asked: () => boolean } {
  let asked = false;
  return {
    asked: () => asked,
    mock: {
      tool: (request) => {
        if (asked || !JSON.stringify(request.body?.tools ?? []).includes('"Bash"')) return undefined;
        asked = true;
        return {
          name: "Bash",
          input: { command: `majordomus handover <<'EOF'\n${body}EOF`, description: "Write my handover" },
        };
      },
    },
  };
}

describe.skipIf(!ENABLED)("Claude Code 2.1.332 against the mock API", () => {
  test(
    "1-2: a first run opens and closes an episode with its records and prompt; the second run's request carries the briefing",
    async () => {
      using rig = new ClaudeRig();
      const first = await rig.run(["-p", "say ok"]);
      expect(first).toMatchObject({ status: 0, timedOut: false });
      expect(first.stdout.trim()).toBe("ok");
      const records = closedTexts(rig.repo);
      expect(records.length).toBe(1);
      // A headless run's ordinary end (reason other) is an ordinary close.
      expect(frontField(records[0]!, "outcome")).toBe("closed");
      expect(records[0]).toContain("(client reason: other)");
      expect(mdFiles(rig.repo, ".ai/local/state/checkpoints").length).toBe(1);
      expect(mdFiles(rig.repo, ".ai/local/state/handovers").length).toBe(1);
      const prompts = readdirSync(rig.repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));
      expect(prompts.length).toBe(1);
      expect(JSON.parse(readFileSync(rig.repo.path(".ai/local/prompts", prompts[0]!), "utf8"))).toMatchObject({
        text: "say ok",
        episode_link: "open",
      });
      // The first request already carried a briefing: the start hook ran before the model was called.
      expect(rig.mock.messages()[0]!.text).toContain("majordomus — what this repository already knows");

      const second = await rig.run(["-p", "what next?"]);
      expect(second.status).toBe(0);
      const request = rig.mock.messages().at(-1)!.text;
      expect(request).toMatch(
        /Handover \.ai\/local\/state\/handovers\/\S+ \(derived, same_worktree_same_branch, exact, fresh, 0m old\)/,
      );
      // Our own closed record is named as such, not as the worker's change.
      expect(request).toContain("working tree clean.");
      expect(request).toContain("1 closed session record(s) not committed");
      expect(request).toContain("Its Next Action, derived by majordomus from the records; no one wrote it, quoted:");
      expect(request).toContain(
        "> No task is active and the working tree has no changes: nothing was left in progress.",
      );
      expect(closedTexts(rig.repo).length).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "the agent's own handover, written with `majordomus handover` in one run, reaches the model in the next run, not a derived one",
    async () => {
      const next = "Port the INI reader to the new tokenizer; start with test/ini.test.ts.";
      const body = `# Objective\nA config parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${next}\n`;
      const agent = writesHandover(body);
      using rig = new ClaudeRig({ mock: agent.mock });
      const first = await rig.run(["-p", "work on the parser", "--allowedTools", "Bash"]);
      expect(first).toMatchObject({ status: 0, timedOut: false });
      expect(agent.asked()).toBe(true);
      const lines = ledger(rig.repo).filter((e) => e.event === "task.handed_over");
      // The agent's record, inside its episode, then the end's derived continuation record.
      expect(lines.map((e) => e.how)).toEqual(["authored", "derived"]);
      expect(lines[0]!.session).toBe(lines[1]!.session);
      expect(lines[0]!.session).toMatch(/^s-/);

      const second = await rig.run(["-p", "what next?"]);
      expect(second.status).toBe(0);
      const request = rig.mock.messages().at(-1)!.text;
      expect(request).toMatch(
        /Handover \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, exact, fresh, 0m old\)/,
      );
      expect(request).toContain(`Its Next Action, in its author's own words, quoted:\n> ${next}`);
      expect(request).toContain("Since then: a derived record");
    },
    TIMEOUT,
  );

  test(
    "what the agent's handover cites reaches the model labelled against the tree: a file deleted, a range moved, one unchanged",
    async () => {
      const next = "Finish `readIni` in `src/ini.ts:3-4`, drop `src/legacy.ts`, keep `src/keep.ts`.";
      const body = `# Objective\nA config parser.\n\n# Current State\nHalf done.\n\n# Next Action\n${next}\n`;
      const agent = writesHandover(body);
      using rig = new ClaudeRig({ mock: agent.mock });
      rig.repo.commit("ini", "src/ini.ts", "// ini\nexport function readIni() {\n  return 1;\n}\n");
      rig.repo.commit("legacy", "src/legacy.ts", "old\n");
      rig.repo.commit("keep", "src/keep.ts", "kept\n");
      const first = await rig.run(["-p", "work on the parser", "--allowedTools", "Bash"]);
      expect(first).toMatchObject({ status: 0, timedOut: false });
      expect(agent.asked()).toBe(true);
      // Between the runs the person deletes one cited file and adds two lines above the cited range.
      rig.repo.git("rm", "-q", "src/legacy.ts");
      rig.repo.commit("move", "src/ini.ts", "// ini\n// two\n// three\nexport function readIni() {\n  return 1;\n}\n");

      const second = await rig.run(["-p", "what next?"]);
      expect(second.status).toBe(0);
      const request = rig.mock.messages().at(-1)!.text;
      expect(request).toContain(`Its Next Action, in its author's own words, quoted:\n> ${next}`);
      expect(request).toContain("What it cites, checked against the tree now (2 of 4 changed, gone or missing):");
      expect(request).toContain("- `src/legacy.ts`: deleted");
      expect(request).toContain(
        "- `src/ini.ts:3-4`: changed since (1 commit, +2 −0 lines); lines 3-4 unchanged, now at lines 5-6",
      );
      expect(request).toContain("- `readIni in src/ini.ts`: still in src/ini.ts");
      expect(request).toContain("- `src/keep.ts`: unchanged");
    },
    TIMEOUT,
  );

  test(
    "over MCP: the model calls majordomus's continuity tool, and the next request carries the handover's Next Action with both labels",
    async () => {
      const next = "Finish the YAML emitter, then run test/emit.test.ts.";
      let called = false;
      using rig = new ClaudeRig({
        mock: {
          // The first request that offers the tool calls it; every later one just answers.
          tool: (request) => {
            if (called || !JSON.stringify(request.body?.tools ?? []).includes('"mcp__majordomus__continuity"'))
              return undefined;
            called = true;
            return { name: "mcp__majordomus__continuity", input: {} };
          },
        },
      });
      ok(
        rig.repo.mj(["handover", "--no-task"], {
          input: `# Objective\nAn emitter.\n\n# Current State\nThe reader is done.\n\n# Next Action\n${next}\n`,
        }),
      );
      // `capture install` named the project's MCP server, as `claude mcp add -s project majordomus -- majordomus mcp` would:
      // by its bare name where the installing PATH finds majordomus, else by the binary's absolute path (the client then starts exactly that).
      expect(JSON.parse(readFileSync(rig.repo.path(".mcp.json"), "utf8"))).toEqual({
        mcpServers: {
          majordomus: {
            type: "stdio",
            command: expect.stringMatching(/^(?:majordomus|\/.+\/majordomus)$/),
            args: ["mcp"],
          },
        },
      });
      const run = await rig.run(["-p", "what should I do next?", "--allowedTools", "mcp__majordomus__continuity"], {
        ENABLE_TOOL_SEARCH: "false",
      });
      expect(run).toMatchObject({ status: 0, timedOut: false });
      expect(called).toBe(true);
      const after = rig.mock.messages().at(-1)!.text;
      expect(after).toContain(`"next_action": "${next}"`);
      expect(after).toContain('"labels": "exact · fresh"');
      expect(after).toContain('"how": "authored"');
    },
    TIMEOUT,
  );

  test(
    "3: /compact derives a checkpoint inside the episode and closes nothing; a --continue run is one episode of the same client session",
    async () => {
      using rig = new ClaudeRig();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const firstSession = frontField(closedTexts(rig.repo)[0]!, "provider_session");
      const before = ledger(rig.repo).length;
      const run = await rig.run(["-p", "-c", "/compact keep names"]);
      expect(run.status).toBe(0);
      const lines = ledger(rig.repo).slice(before);
      const received = lines
        .filter((e) => e.event === "provider.event.received")
        .map((e) => `${e.provider_event}:${e.source ?? e.reason ?? ""}`);
      expect(received).toEqual(["start:resume", "compact:", "start:compact", "end:other"]);
      // Both start events of the --continue run map to one episode, of the same client session as the first run.
      const started = lines.filter((e) => e.event === "session.started");
      expect(started.length).toBe(1);
      expect(started[0]!.provider_session).toBe(firstSession);
      const episode = started[0]!.session_id;
      const compactAt = lines.findIndex((e) => e.event === "provider.event.received" && e.provider_event === "compact");
      const checkpoint = lines.findIndex((e, i) => i > compactAt && e.event === "task.checkpoint");
      const closed = lines.findIndex((e) => e.event === "session.closed");
      expect(checkpoint).toBeGreaterThan(compactAt);
      expect(lines[checkpoint]!.session).toBe(episode);
      expect(closed).toBeGreaterThan(
        lines.findIndex((e) => e.event === "provider.event.received" && e.source === "compact"),
      );
      expect(lines.filter((e) => e.event === "session.closed").length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "4: /clear closes the episode as closed and opens a new one",
    async () => {
      using rig = new ClaudeRig();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const before = ledger(rig.repo).length;
      expect((await rig.run(["-p", "-c", "/clear"])).status).toBe(0);
      const lines = ledger(rig.repo).slice(before);
      const closedEvents = lines.filter((e) => e.event === "session.closed");
      const outcomes = closedEvents.map((e) => e.outcome);
      expect(outcomes[0]).toBe("closed");
      const opened = lines.filter((e) => e.event === "session.started").map((e) => e.session_id);
      expect(opened.length).toBe(2);
      expect(opened[0]).not.toBe(opened[1]);
      // Every record closed: the first run's (reason other), the cleared one's (reason clear), the resumed run's.
      const texts = closedTexts(rig.repo);
      expect(texts.map((r) => frontField(r, "outcome"))).toEqual(texts.map(() => "closed"));
      expect(texts.filter((r) => r.includes("(client reason: clear)")).length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "5: past the line of a 200k auto-compact window, the mod asks for a handover and the request reaches the model",
    async () => {
      using rig = new ClaudeRig({ mock: { inputTokens: (_, index) => (index === 0 ? 150_000 : 2_000) } });
      rig.trust();
      const run = await rig.run(["-p", "say ok"], { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" });
      expect(run.status).toBe(0);
      const requests = rig.mock.messages();
      const asked = requests.find((r) => r.text.includes("write a majordomus handover now"));
      expect(asked).toBeDefined();
      expect(asked!.text).toContain("`majordomus handover`");
      expect(asked!.text).toContain("# Next Action");
      const debug = readFileSync(rig.debugLog, "utf8");
      expect(debug).toContain("majordomus-handover");
      // Below the line nothing is asked.
      using quiet = new ClaudeRig({ mock: { inputTokens: () => 100_000 } });
      quiet.trust();
      expect((await quiet.run(["-p", "say ok"], { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" })).status).toBe(0);
      expect(quiet.mock.messages().some((r) => r.text.includes("write a majordomus handover now"))).toBe(false);
    },
    TIMEOUT,
  );

  test(
    "the interactive UI (in tmux): a person's /exit closes the episode as closed, with its records",
    async () => {
      using rig = new ClaudeRig();
      rig.trust();
      using tui = new TmuxSession(rig);
      expect(await tui.firstTurn(rig)).toBe(true);
      tui.type("/exit");
      expect(await tui.until(() => closedTexts(rig.repo).length === 1, 30_000)).toBe(true);
      const record = closedTexts(rig.repo)[0]!;
      expect(frontField(record, "outcome")).toBe("closed");
      expect(record).toContain("(client reason: prompt_input_exit)");
      expect(rig.mock.messages()[0]!.text).toContain("majordomus — what this repository already knows");
      expect(mdFiles(rig.repo, ".ai/local/state/handovers").length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "6: a foreign settings file stays byte-identical and the client still runs",
    async () => {
      const repo = layered();
      mkdirSync(repo.path(".claude"));
      const mine = '{\n  "permissions": { "allow": ["Bash(ls)"] },\n  "env": { "MY_FLAG": "1" }\n}\n';
      writeFileSync(repo.path(".claude/settings.json"), mine);
      const install = repo.mj(["capture", "install"]);
      expect(install.status).toBe(15);
      expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).toBe(mine);
      using rig = new ClaudeRig({ repo });
      const run = await rig.run(["-p", "say ok"]);
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe("ok");
      expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).toBe(mine);
    },
    TIMEOUT,
  );

  test(
    "7: capture status shows claude-code prompt and session verified",
    async () => {
      using rig = new ClaudeRig();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(statusRow(rig.repo, "claude-code", "prompt").state).toBe("verified");
      expect(statusRow(rig.repo, "claude-code", "session").state).toBe("verified");
    },
    TIMEOUT,
  );

  test(
    "the shipped mod passes `claude plugin validate --strict` and its own tests under `claude plugin test`",
    async () => {
      using rig = new ClaudeRig();
      const mod = rig.repo.path(".claude/skills/majordomus-handover");
      // The installed copy carries no test; the distribution's copy (with its test) is validated and tested.
      const source = new URL("../../mods/claude-code/majordomus-handover", import.meta.url).pathname;
      for (const [args, expectText] of [
        [["plugin", "validate", source, "--strict"], "Validation passed"],
        [["plugin", "validate", mod, "--strict"], "Validation passed"],
        [["plugin", "test", source], " 0 fail"],
      ] as const) {
        const run = await rig.run([...args]);
        expect(`${run.stdout}${run.stderr}`).toContain(expectText);
        expect(run.status).toBe(0);
      }
    },
    TIMEOUT,
  );
});
