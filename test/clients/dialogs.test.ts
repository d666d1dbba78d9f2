// The real Claude Code's interactive UI (in tmux) on a freshly wired checkout, as a person meets it: the folder-trust
// dialog ("No, exit" preselected), then, in a clone without the approval `capture install` records (a teammate's:
// the local settings file is not in git), the MCP dialog ("Continue without using this MCP server" preselected).
// The answers the README and `capture install` name lead to majordomus's tools in the model's request; the dialog's
// default makes `capture status` say rejected, with the fix.
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { ClaudeRig, TmuxSession } from "./rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;
const TOOL = "mcp__majordomus__continuity";

/** A HOME that has been through onboarding and knows the API key, and has never seen this folder. */
function freshHome(rig: ClaudeRig): void {
  writeFileSync(
    join(rig.home, ".claude.json"),
    JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: ["dummy"], rejected: [] } }),
  );
}

function statusRow(rig: ClaudeRig, aspect: string): { state: string; reason: string } {
  const run = rig.repo.mj(["capture", "status", "--json"], {
    env: { HOME: rig.home, PATH: `${dirname(BIN)}:${process.env.PATH}` },
  });
  const items = JSON.parse(run.stdout).items as Array<{
    provider: string;
    aspect: string;
    state: string;
    reason: string;
  }>;
  return items.find((r) => r.provider === "claude-code" && r.aspect === aspect)!;
}

/**
 * A person's answer to a dialog: once the screen shows `dialog`, the arrow keys until `option` is the one marked,
 * then Enter. Returns the screen as the dialog first showed it (with its preselected answer).
 */
async function choose(tui: TmuxSession, dialog: string, option: string): Promise<string> {
  const shown = await tui.until(() => tui.screen().includes(dialog), 60_000);
  expect(shown ? dialog : `not shown: ${dialog}\n${tui.screen()}`).toBe(dialog);
  await Bun.sleep(1_000);
  const first = tui.screen();
  const options = first.split("\n").map((l) => l.replace(/^\s*❯?\s*/, "").trim());
  const at = () => options.indexOf(option);
  const marked = () => {
    const line =
      tui
        .screen()
        .split("\n")
        .find((l) => /^\s*❯/.test(l)) ?? "";
    return options.indexOf(line.replace(/^\s*❯\s*/, "").trim());
  };
  expect(at()).toBeGreaterThan(-1);
  for (let tries = 0; tries < 10 && marked() !== at(); tries++) {
    tui.key(marked() < at() ? "Down" : "Up");
    await tui.until(() => false, 300);
  }
  expect(marked()).toBe(at());
  tui.key("Enter");
  return first;
}

async function sayOk(tui: TmuxSession, rig: ClaudeRig): Promise<void> {
  expect(await tui.until(() => tui.screen().includes("Claude Code v"), 60_000)).toBe(true);
  await Bun.sleep(1_000);
  tui.type("say ok");
  expect(await tui.until(() => rig.mock.messages().length > 0, 60_000)).toBe(true);
}

describe.skipIf(!ENABLED)("Claude Code 2.1.332's dialogs, as a person meets them", () => {
  test(
    "after capture install: only the trust dialog (its default is No, exit); the documented answer leads to majordomus's tools in the model's request",
    async () => {
      using rig = new ClaudeRig();
      freshHome(rig);
      expect(existsSync(rig.repo.path(".claude/settings.local.json"))).toBe(true);
      using tui = new TmuxSession(rig);
      const trust = await choose(tui, "Is this a project you created or one you trust?", "Yes, I trust this folder");
      expect(trust).toMatch(/❯ No, exit/);
      await sayOk(tui, rig);
      expect(tui.screen()).not.toContain("New MCP server found");
      expect(rig.mock.messages()[0]!.text).toContain(TOOL);
      expect(statusRow(rig, "mcp").state).toBe("verified");
      expect(statusRow(rig, "session").reason).not.toContain("has not been trusted");
    },
    TIMEOUT,
  );

  test(
    'a clone without the recorded approval: the MCP dialog; "Use this MCP server" gives the model majordomus\'s tools and status verified',
    async () => {
      using rig = new ClaudeRig();
      freshHome(rig);
      rmSync(rig.repo.path(".claude/settings.local.json"));
      expect(statusRow(rig, "mcp")).toMatchObject({ state: "wired" });
      expect(statusRow(rig, "mcp").reason).toContain('choose "Use this MCP server"');
      using tui = new TmuxSession(rig);
      await choose(tui, "Is this a project you created or one you trust?", "Yes, I trust this folder");
      const dialog = await choose(tui, "New MCP server found in this project: majordomus", "Use this MCP server");
      expect(dialog).toMatch(/❯ Continue without using this MCP server/);
      await sayOk(tui, rig);
      expect(rig.mock.messages()[0]!.text).toContain(TOOL);
      expect(statusRow(rig, "mcp").state).toBe("verified");
    },
    TIMEOUT,
  );

  test(
    "the MCP dialog's default (Continue without): no majordomus tool reaches the model, and status says rejected with the fix",
    async () => {
      using rig = new ClaudeRig();
      freshHome(rig);
      rmSync(rig.repo.path(".claude/settings.local.json"));
      using tui = new TmuxSession(rig);
      await choose(tui, "Is this a project you created or one you trust?", "Yes, I trust this folder");
      await choose(tui, "New MCP server found in this project: majordomus", "Continue without using this MCP server");
      await sayOk(tui, rig);
      expect(rig.mock.messages()[0]!.text).not.toContain(TOOL);
      const row = statusRow(rig, "mcp");
      expect(row.state).toBe("rejected");
      expect(row.reason).toContain("claude mcp reset-project-choices");
    },
    TIMEOUT,
  );
});
