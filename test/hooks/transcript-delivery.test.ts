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

  test("a torn last line is no row; a transcript behind a link, or none, is not provable", () => {
    expect(
      claudeVerdict(
        `${row({ type: "hook_success", content: "briefing" })}\n{"type":"attachment","attachment":{"hookEvent":"SessionStart","command":"${SHIM}`,
        SHIM,
      ).state,
    ).toBe("inline");
    const dir = scratch("majordomus-transcript-");
    try {
      mkdirSync(join(dir, "p"));
      writeFileSync(join(dir, "p", "t.jsonl"), row({ type: "hook_success", content: "briefing" }));
      symlinkSync(join(dir, "p", "t.jsonl"), join(dir, "link.jsonl"));
      expect(deliveryOf("claude-code", join(dir, "p", "t.jsonl"), SHIM).state).toBe("inline");
      expect(deliveryOf("claude-code", join(dir, "link.jsonl"), SHIM).state).toBe("not_provable");
      expect(deliveryOf("claude-code", undefined, SHIM).state).toBe("not_provable");
      expect(deliveryOf("codex", join(dir, "p", "t.jsonl"), SHIM).state).toBe("not_provable");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
