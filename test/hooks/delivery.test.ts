// How each client is handed the briefing, and what of a prompt is the person's: rows of data per
// client (providers.yaml), checked in process against the real table.
import { describe, expect, test } from "bun:test";
import { adapted } from "../../src/providers/index.ts";
import { envelope, personsPrompt } from "../../src/hooks/delivery.ts";

describe("per-client delivery", () => {
  test("Claude Code and Codex read the briefing as plain stdout; Gemini only as JSON additionalContext", async () => {
    expect(envelope(await adapted("claude-code"), "## briefing")).toBe("## briefing");
    expect(envelope(await adapted("codex"), "## briefing")).toBe("## briefing");
    expect(JSON.parse(envelope(await adapted("gemini"), "## briefing"))).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "## briefing" },
    });
  });

  test("Gemini's <hook_context> prefix is not the person's prompt; other clients' prompts are kept whole", async () => {
    const gemini = await adapted("gemini");
    expect(personsPrompt(gemini, "<hook_context>## majordomus …\n> x</hook_context>\n\nsay ok")).toBe("say ok");
    expect(
      personsPrompt(
        gemini,
        "<hook_context>a</hook_context>\n<hook_context>b</hook_context>\n\nfix <hook_context> parsing",
      ),
    ).toBe("fix <hook_context> parsing");
    expect(personsPrompt(gemini, "no prefix here")).toBe("no prefix here");
    expect(personsPrompt(await adapted("claude-code"), "<hook_context>x</hook_context> hi")).toBe(
      "<hook_context>x</hook_context> hi",
    );
  });
});
