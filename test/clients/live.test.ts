// Live sessions that share a checkout, with the real clients: Claude Code's interactive UI (in
// tmux) at work while a second session (Claude Code headless, or Codex) opens in the same
// checkout. The second's model request carries the live session in its briefing; the first's next
// request carries the notice of the second, once. Run with `npm run test:clients` (CI runs it too).
import { describe, expect, test } from "bun:test";
import { layered, ok } from "../support/layered.ts";
import { openKeys } from "../support/capture.ts";
import { ClaudeRig, TmuxSession } from "./rig.ts";
import { CodexRig, developer } from "./codex-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;
const NOTICE = "## majordomus — another session opened beside this one";

const count = (text: string, part: string) => text.split(part).length - 1;

/** The newest request of the interactive session that carries `typed`. */
function requestWith(rig: ClaudeRig, typed: string): string | undefined {
  return rig.mock
    .messages()
    .map((m) => m.text)
    .filter((t) => t.includes(typed))
    .at(-1);
}

describe.skipIf(!ENABLED)("live sessions with the real clients", () => {
  test(
    "two Claude Code sessions in one checkout: each is told of the other once; a third after both ended gets the account as usual",
    async () => {
      using rig = new ClaudeRig();
      rig.trust();
      using tui = new TmuxSession(rig);
      expect(await tui.firstTurn(rig)).toBe(true);

      // A second session opens while the first is at work: its briefing names the first.
      const second = await rig.run(["-p", "what is going on here?"]);
      expect(second.status).toBe(0);
      const secondRequest = requestWith(rig, "what is going on here?")!;
      expect(secondRequest).toContain("LIVE: 1 other session(s) at work beside this one");
      expect(secondRequest).toMatch(/- claude-code session \S+ \(episode s-\S+\): opened /);
      expect(secondRequest).not.toContain(NOTICE);

      // The first hears of it with its next prompt, and only once.
      tui.type("anything new?");
      expect(await tui.until(() => requestWith(rig, "anything new?") !== undefined, 60_000)).toBe(true);
      const told = requestWith(rig, "anything new?")!;
      expect(told).toContain(NOTICE);
      expect(told).toMatch(/- A claude-code session \(episode s-\S+\) opened in this checkout/);
      await Bun.sleep(1_000);
      tui.type("and now?");
      expect(await tui.until(() => requestWith(rig, "and now?") !== undefined, 60_000)).toBe(true);
      // The conversation carries the first notice along; no second one was added.
      expect(count(requestWith(rig, "and now?")!, NOTICE)).toBe(1);

      tui.type("/exit");
      expect(await tui.until(() => openKeys(rig.repo).length === 0, 30_000)).toBe(true);
      // Both ended: a third session is handed the newest account, with nobody live beside it.
      const third = await rig.run(["-p", "third time"]);
      expect(third.status).toBe(0);
      const thirdRequest = requestWith(rig, "third time")!;
      expect(thirdRequest).not.toContain("LIVE:");
      expect(thirdRequest).not.toContain("still at work in this checkout");
      expect(thirdRequest).toMatch(/Handover \.ai\/local\/state\/handovers\/\S+ \(derived, same_worktree_same_branch/);
    },
    TIMEOUT,
  );

  test(
    "Codex opens beside a Claude Code session at work: Codex's briefing names it, and Claude Code is told of Codex",
    async () => {
      const repo = layered();
      for (const provider of ["claude-code", "codex"]) ok(repo.mj(["capture", "install", "--provider", provider]));
      repo.git("add", ".claude", ".mcp.json", ".codex");
      repo.git("commit", "-q", "-m", "Wire two clients");
      using claude = new ClaudeRig({ repo });
      using codex = new CodexRig({ repo, install: false });
      claude.trust();
      codex.trust();
      using tui = new TmuxSession(claude);
      expect(await tui.firstTurn(claude)).toBe(true);

      expect((await codex.run(["what is going on here?"])).status).toBe(0);
      const briefing = developer(codex.mock.requests()[0]!.body);
      expect(briefing).toContain("LIVE: 1 other session(s) at work beside this one");
      expect(briefing).toMatch(/- claude-code session \S+ \(episode s-\S+\): opened /);

      tui.type("anything new?");
      expect(await tui.until(() => requestWith(claude, "anything new?") !== undefined, 60_000)).toBe(true);
      const told = requestWith(claude, "anything new?")!;
      expect(told).toContain(NOTICE);
      expect(told).toMatch(/- A codex session \(episode s-\S+\) opened in this checkout/);
      tui.type("/exit");
    },
    TIMEOUT,
  );
});
