// Each dialect writes the entry its clients read, finds the commands in a file that holds the person's hooks
// beside ours, and takes out ours alone.
import { describe, expect, test } from "bun:test";
import { commandsIn, DIALECTS, dialectOf } from "../../src/wiring/dialects.ts";
import { adapted } from "../../src/providers/index.ts";

const claude = await adapted("claude-code");
const ours = (c: string) => c.includes(".claude/hooks/majordomus-");

describe("hook-file dialects", () => {
  test("nested (Claude Code, Codex, Gemini): a list of handlers (under a matcher where the client wants one); the person's handler in the same entry stays", () => {
    const entry = DIALECTS.nested.entry(claude, "start");
    // No matcher for Claude Code: Copilot reads its file too, and refuses the whole file over an empty one.
    expect(entry).toEqual({
      hooks: [
        { type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/majordomus-session-start', timeout: 20 },
      ],
    });
    expect(dialectOf(claude.hooks)).toBe(DIALECTS.nested);
    const mixed = { ...entry, hooks: [...(entry.hooks as object[]), { type: "command", command: "./mine.sh" }] };
    const file = { hooks: { SessionStart: [mixed] } };
    expect(commandsIn(file, "SessionStart")).toEqual([
      (entry.hooks as Array<{ command: string }>)[0]!.command,
      "./mine.sh",
    ]);
    expect(DIALECTS.nested.without(mixed, ours)).toEqual({
      kept: { hooks: [{ type: "command", command: "./mine.sh" }] },
      removed: 1,
    });
    expect(DIALECTS.nested.without(entry, ours)).toEqual({ kept: undefined, removed: 1 });
  });

  test("flat: each entry is a handler with a command per shell, in a file that carries its version", () => {
    const copilotLike = { ...claude, hooks: { ...claude.hooks, dialect: "flat" as const } };
    const entry = DIALECTS.flat.entry(copilotLike, "prompt");
    expect(entry).toEqual({
      type: "command",
      bash: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/majordomus-capture',
      powershell: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/majordomus-capture',
      timeoutSec: 10,
    });
    expect(DIALECTS.flat.skeleton).toEqual({ version: 1 });
    const mine = { type: "command", bash: "./mine.sh", timeoutSec: 5 };
    const file = { version: 1, hooks: { userPromptSubmitted: [entry, mine] } };
    expect(commandsIn(file, "userPromptSubmitted", DIALECTS.flat)).toEqual([
      String(entry.bash),
      String(entry.powershell),
      "./mine.sh",
    ]);
    expect(DIALECTS.flat.without(entry, ours)).toEqual({ kept: undefined, removed: 1 });
    expect(DIALECTS.flat.without(mine, ours)).toEqual({ kept: mine, removed: 0 });
  });
});
