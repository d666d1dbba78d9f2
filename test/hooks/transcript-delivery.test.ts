// Judging delivery from Claude Code's transcript, in process, over rows shaped as 2.1.332 writes
// them (an `attachment` row per hook answer): the newest answer of the start shim decides.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeVerdict, deliveryOf } from "../../src/transcript/delivery.ts";
import { scratch } from "../support/repo.ts";

const SHIM = ".claude/hooks/majordomus-session-start";
const command = `"$CLAUDE_PROJECT_DIR"/${SHIM}`;
const row = (attachment: Record<string, unknown>) =>
  JSON.stringify({
    type: "attachment",
    attachment: { hookName: "SessionStart:startup", hookEvent: "SessionStart", command, ...attachment },
  });
const user = JSON.stringify({ type: "user", message: { role: "user", content: "say ok" } });

describe("delivery from the transcript", () => {
  test("inline, collapsed and missing, each with its cause", () => {
    expect(
      claudeVerdict([row({ type: "hook_success", content: "## majordomus — briefing" }), user].join("\n"), SHIM),
    ).toEqual({ state: "inline", cause: "the briefing reached the model whole (24 characters)" });
    const collapsed = claudeVerdict(
      row({ type: "hook_success", content: "<persisted-output>\nOutput too large (13KB). Full output saved to: /x\n" }),
      SHIM,
    );
    expect(collapsed.state).toBe("collapsed");
    expect(collapsed.cause).toContain("(13KB)");
    const failed = claudeVerdict(
      row({
        type: "hook_non_blocking_error",
        stderr: "Failed with non-blocking status code: majordomus: info\nno git",
        exitCode: 1,
      }),
      SHIM,
    );
    expect(failed).toEqual({ state: "missing", cause: "the start hook did not answer (exit 1): no git" });
    expect(claudeVerdict(user, SHIM).state).toBe("missing");
  });

  test("the newest answer counts (a resumed session), and another hook's answer is not ours", () => {
    const text = [
      row({ type: "hook_success", content: "<persisted-output>\nOutput too large (13KB)." }),
      user,
      row({ type: "hook_success", content: "briefing" }),
    ].join("\n");
    expect(claudeVerdict(text, SHIM).state).toBe("inline");
    const foreign = JSON.stringify({
      type: "attachment",
      attachment: { hookEvent: "SessionStart", type: "hook_success", content: "x", command: "other-tool start" },
    });
    expect(claudeVerdict(foreign, SHIM).state).toBe("missing");
  });

  test("a torn last line is no row; a transcript behind a link (the file or a folder on its way), outside the client's folder, or none, is not provable", () => {
    expect(
      claudeVerdict(
        `${row({ type: "hook_success", content: "briefing" })}\n{"type":"attachment","attachment":{"hookEvent":"SessionStart","command":"${SHIM}`,
        SHIM,
      ).state,
    ).toBe("inline");
    const dir = scratch("majordomus-transcript-");
    const was = process.env.CLAUDE_CONFIG_DIR;
    try {
      // Claude Code's folder: its transcripts under projects/.
      process.env.CLAUDE_CONFIG_DIR = dir;
      const projects = join(dir, "projects");
      mkdirSync(join(projects, "p"), { recursive: true });
      mkdirSync(join(dir, "elsewhere"));
      const briefed = row({ type: "hook_success", content: "briefing" });
      writeFileSync(join(projects, "p", "t.jsonl"), briefed);
      writeFileSync(join(dir, "elsewhere", "t.jsonl"), briefed);
      symlinkSync(join(projects, "p", "t.jsonl"), join(projects, "link.jsonl"));
      symlinkSync(join(dir, "elsewhere"), join(projects, "x"));
      expect(deliveryOf("claude-code", join(projects, "p", "t.jsonl"), SHIM).state).toBe("inline");
      for (const refused of ["link.jsonl", "x/t.jsonl", "../elsewhere/t.jsonl"])
        expect(`${refused} ${deliveryOf("claude-code", join(projects, refused), SHIM).state}`).toBe(
          `${refused} not_provable`,
        );
      expect(deliveryOf("claude-code", undefined, SHIM).state).toBe("not_provable");
      expect(deliveryOf("codex", join(projects, "p", "t.jsonl"), SHIM).state).toBe("not_provable");
    } finally {
      if (was === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = was;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
