// The fresh window against the real Claude Code 2.1.332 and the mock API: with the fresh window
// granted, a compaction is answered with majordomus's boot (the briefing and the agent's own
// handover), not the client's summary; `/compact` is vetoed; a prompt-too-long is answered the same
// way; with the switch off the client summarizes as before; and `/fresh-window` in the interactive UI
// closes the window out through the agent's own handover. Run with `npm run test:clients`.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { layered, ledger } from "../support/layered.ts";
import { asksForSummary, type MockOptions, type Received } from "./mock-anthropic.ts";
import { ClaudeRig, TmuxSession } from "./rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;
const NEXT = "Port the INI reader to the new tokenizer; start with test/ini.test.ts.";
const HANDOVER = `# Objective\nA config parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${NEXT}\n`;
const WRITE_HANDOVER = {
  name: "Bash",
  input: {
    command: `majordomus handover --no-task <<'EOF'\n${HANDOVER}EOF`,
    description: "Write my majordomus handover",
  },
};
/** A 100k auto-compact window: the client compacts past 67,000 tokens. */
const SMALL_WINDOW = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000" };

/** A supervised, wired repository that asks for the fresh window; `consent` is the person's local yes. */
function rig(consent: boolean, mock: MockOptions = {}): ClaudeRig {
  const repo = layered();
  const policy = repo.path(".ai/repo/policy.yaml");
  writeFileSync(policy, readFileSync(policy, "utf8").replace(/^session:\n/m, "session:\n  fresh_window: true\n"));
  repo.git("commit", "-q", "-am", "Ask for the fresh window");
  if (consent) writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
  const made = new ClaudeRig({ repo, mock, wire: true });
  made.trust();
  return made;
}

const boots = (requests: Received[]) => requests.filter((r) => r.text.includes("# majordomus fresh window s-"));
const summaries = (requests: Received[]) => requests.filter((r) => asksForSummary(r));
const offersBash = (r: Received) => JSON.stringify(r.body?.tools ?? []).includes('"Bash"');

describe.skipIf(!ENABLED)("the fresh window in the real Claude Code 2.1.332", () => {
  test(
    "past the threshold mid-turn: the next request starts from the boot (the briefing and the agent's Next Action), no summary, a checkpoint, the episode open",
    async () => {
      let wrote = false;
      using r = rig(true, {
        // The first request reports a window past the threshold and answers with the agent writing its handover.
        inputTokens: (_, i) => (i === 0 ? 70_000 : 3_000),
        tool: (request) => {
          if (wrote || !offersBash(request)) return undefined;
          wrote = true;
          return WRITE_HANDOVER;
        },
      });
      const run = await r.run(["-p", "work on the parser", "--allowedTools", "Bash"], SMALL_WINDOW);
      expect(run).toMatchObject({ status: 0, timedOut: false });
      const requests = r.mock.messages();
      expect(summaries(requests)).toEqual([]);
      const boot = boots(requests);
      expect(boot.length).toBeGreaterThan(0);
      const text = boot[0]!.text;
      expect(text).toContain("## majordomus — what this repository already knows");
      expect(text).toMatch(/\(authored, same_worktree_same_branch, exact, fresh, 0m old/);
      expect(text).toContain(`> ${NEXT}`);
      // The compaction came mid-turn: the turn's prompt is kept after the boot.
      expect(text.indexOf("work on the parser", text.indexOf("# majordomus fresh window"))).toBeGreaterThan(0);
      const lines = ledger(r.repo);
      const window = lines.findIndex((e) => e.event === "session.window");
      expect(lines[window]).toMatchObject({ window: 1, trigger: "fresh_window", client_trigger: "auto" });
      // The derived checkpoint for that compaction, in the episode, written before the window moved; the episode closed only at the run's end.
      const checkpoint = lines.findIndex((e) => e.event === "task.checkpoint" && e.how === "derived");
      expect(checkpoint).toBeGreaterThan(-1);
      expect(checkpoint).toBeLessThan(window);
      expect(lines[checkpoint]!.session).toBe(lines[window]!.session_id);
      expect(lines.findIndex((e) => e.event === "session.closed")).toBeGreaterThan(window);
      expect(lines.filter((e) => e.event === "session.started").length).toBe(1);
      // No settings-level PreCompact ran for it.
      expect(lines.some((e) => e.event === "provider.event.received" && e.provider_event === "compact")).toBe(false);

      // The next session: its briefing still hands over the agent's own words, not the end's derived record.
      expect((await r.run(["-p", "what next?"])).status).toBe(0);
      const next = r.mock.messages().at(-1)!.text;
      expect(next).toContain(`Its Next Action, in its author's own words, quoted:\n> ${NEXT}`);
      expect(next).toContain("Since then: a derived record");
    },
    TIMEOUT,
  );

  test(
    '`-p "/compact"` prints the veto notice naming /fresh-window, and no summary is made',
    async () => {
      using r = rig(true);
      expect((await r.run(["-p", "say ok"])).status).toBe(0);
      const run = await r.run(["-p", "-c", "/compact"]);
      expect(run.status).toBe(0);
      expect(`${run.stdout}${run.stderr}`).toContain(
        "/compact is answered by the fresh window here; run /fresh-window",
      );
      expect(summaries(r.mock.messages())).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    '`-p "/fresh-window"` refuses in a headless session with a non-zero exit, and submits no turn',
    async () => {
      using r = rig(true);
      const run = await r.run(["-p", "/fresh-window"]);
      expect(run.status).toBe(1);
      expect(`${run.stdout}${run.stderr}`).toContain("/fresh-window needs the interactive UI");
      expect(r.mock.messages().some((m) => m.text.includes("Write your handover now"))).toBe(false);
    },
    TIMEOUT,
  );

  test(
    "a 400 prompt-is-too-long is answered with the boot too, and the retried request carries it",
    async () => {
      let refused = false;
      using r = rig(true, {
        error: (request) => {
          if (refused || !request.text.includes("next part please")) return undefined;
          refused = true;
          return {
            status: 400,
            type: "invalid_request_error",
            message: "prompt is too long: 210000 tokens > 200000 maximum",
          };
        },
      });
      expect((await r.run(["-p", "say ok"])).status).toBe(0);
      const run = await r.run(["-p", "-c", "next part please"]);
      expect(refused).toBe(true);
      expect(run.status).toBe(0);
      const after = r.mock.messages().at(-1)!;
      expect(after.text).toContain("# majordomus fresh window s-");
      expect(after.text).toContain("next part please");
      expect(summaries(r.mock.messages())).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "with the switch off (asked, not consented) the client compacts as before: its own hook checkpoints, /compact summarizes, no boot",
    async () => {
      using r = rig(false, {
        inputTokens: (_, i) => (i === 0 ? 70_000 : 3_000),
        tool: (request, i) =>
          i === 0 && offersBash(request)
            ? { name: "Bash", input: { command: "true", description: "Nothing" } }
            : undefined,
      });
      const run = await r.run(["-p", "work", "--allowedTools", "Bash"], SMALL_WINDOW);
      expect(run.status).toBe(0);
      // The settings-level PreCompact hook ran for the automatic compaction, as without the mod.
      expect(ledger(r.repo).some((e) => e.event === "provider.event.received" && e.provider_event === "compact")).toBe(
        true,
      );
      const manual = await r.run(["-p", "-c", "/compact"]);
      expect(manual.status).toBe(0);
      expect(`${manual.stdout}${manual.stderr}`).not.toContain("/fresh-window");
      expect(summaries(r.mock.messages()).length).toBe(1);
      expect(boots(r.mock.messages())).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "the interactive UI (in tmux): /fresh-window runs the close-out turn, the agent writes its handover, and the next request starts from the boot",
    async () => {
      let wrote = false;
      using r = rig(true, {
        tool: (request) => {
          if (wrote || !request.text.includes("Write your handover now") || !offersBash(request)) return undefined;
          wrote = true;
          return WRITE_HANDOVER;
        },
      });
      // The person allowed the agent's Bash calls in this checkout.
      const local = r.repo.path(".claude/settings.local.json");
      writeFileSync(
        local,
        JSON.stringify(
          { ...JSON.parse(readFileSync(local, "utf8")), permissions: { defaultMode: "acceptEdits", allow: ["Bash"] } },
          null,
          2,
        ),
      );
      using tui = new TmuxSession(r);
      expect(await tui.firstTurn(r)).toBe(true);
      tui.type("/fresh-window");
      expect(await tui.until(() => wrote, 60_000)).toBe(true);
      const handovers = () => ledger(r.repo).filter((e) => e.event === "task.handed_over" && e.how === "authored");
      const written = await tui.until(() => handovers().length === 1, 30_000);
      expect(written).toBe(true);
      expect(await tui.until(() => ledger(r.repo).some((e) => e.event === "session.window"), 30_000)).toBe(true);
      await Bun.sleep(1_000);
      tui.type("what next?");
      expect(await tui.until(() => r.mock.messages().some((m) => m.text.includes("what next?")), 30_000)).toBe(true);
      const next = r.mock.messages().find((m) => m.text.includes("what next?"))!;
      expect(next.text).toContain("# majordomus fresh window s-");
      expect(next.text).toContain(`> ${NEXT}`);
      // The window before it is gone from the request: the close-out prompt is not there any more.
      expect(next.text).not.toContain("Write your handover now");
      expect(ledger(r.repo).find((e) => e.event === "session.window")).toMatchObject({
        window: 1,
        client_trigger: "plugin",
      });
    },
    TIMEOUT,
  );

  test(
    "the history tools read the transcript the real client wrote: windows across a /compact, the earlier prompt found in @previous",
    async () => {
      const calls = [
        { name: "mcp__majordomus__history_windows", input: {} },
        { name: "mcp__majordomus__history_list", input: { window: "@previous", query: "remember the walrus" } },
      ];
      let step = 0;
      using r = rig(false, {
        tool: (request) => {
          if (!request.text.includes("what came before?") || step >= calls.length) return undefined;
          if (!JSON.stringify(request.body?.tools ?? []).includes('"mcp__majordomus__history_list"')) return undefined;
          return calls[step++];
        },
      });
      expect((await r.run(["-p", "remember the walrus"])).status).toBe(0);
      expect((await r.run(["-p", "-c", "/compact"])).status).toBe(0);
      const run = await r.run(
        [
          "-p",
          "-c",
          "what came before?",
          "--allowedTools",
          "mcp__majordomus__history_windows,mcp__majordomus__history_list",
        ],
        { ENABLE_TOOL_SEARCH: "false" },
      );
      expect(run).toMatchObject({ status: 0, timedOut: false });
      expect(step).toBe(2);
      const texts = r.mock.messages().map((m) => m.text);
      const windows = texts.find((t) => t.includes('"previous": 0'));
      expect(windows).toBeDefined();
      expect(windows).toContain('"trigger": "manual"');
      const listed = texts.find((t) => t.includes('"total": 1') && t.includes('"preview": "remember the walrus"'));
      expect(listed).toBeDefined();
      // Nothing of the transcript was stored under .ai/ by the tools.
      const shared = readFileSync(r.repo.path(".ai/local/state/ledger.jsonl"), "utf8");
      expect(shared).not.toContain("what came before?");
    },
    TIMEOUT,
  );
});
