// The real clients in one checkout: independent episodes, each keyed by its own client and session,
// each briefing naming its own, closed records saying which client, no cross-talk; and a handover
// written in one client's session handed to another's, labelled.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { ClientId } from "../../src/providers/index.ts";
import { closedTexts, layered, ledger, ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";
import { ClaudeRig } from "./rig.ts";
import { CodexRig } from "./codex-rig.ts";
import { GeminiRig } from "./gemini-rig.ts";
import { CopilotRig } from "./copilot-rig.ts";
import type { ToolCall } from "./mock-anthropic.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";

/** What `capture install` writes for each client, committed as an adopter does. */
const WIRING: Record<ClientId, string[]> = {
  "claude-code": [".claude", ".mcp.json"],
  codex: [".codex"],
  gemini: [".gemini"],
  copilot: [".github"],
  opencode: [".opencode"],
};

function wired(clients: ClientId[]): Repo {
  const repo = layered();
  for (const provider of clients) ok(repo.mj(["capture", "install", "--provider", provider]));
  repo.git("add", ...clients.flatMap((c) => WIRING[c]));
  repo.git("commit", "-q", "-m", `Wire ${clients.join(", ")}`);
  return repo;
}

/** The model's first call where `tool` is offered: the agent writing `next` as its handover's Next Action. */
function handsOver(tool: string, next: string): (request: { body?: Record<string, unknown> }) => ToolCall | undefined {
  let asked = false;
  const body = `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${next}\n`;
  return (request) => {
    if (asked || !JSON.stringify(request.body?.tools ?? []).includes(`"${tool}"`)) return undefined;
    asked = true;
    // By name from PATH: Copilot denies a program outside the project without a person to approve it.
    return {
      name: tool,
      input: { command: `majordomus handover <<'EOF'\n${body}EOF`, description: "Write my handover" },
    };
  };
}

const LABEL =
  /Handover \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, exact, fresh, \dm old\)/;

describe.skipIf(!ENABLED)("the clients in one checkout", () => {
  test("Claude Code, Codex, Gemini and Copilot each get their own episode, briefing and record", async () => {
    const repo = wired(["claude-code", "codex", "gemini", "copilot"]);
    using claude = new ClaudeRig({ repo });
    using codex = new CodexRig({ repo, install: false });
    using gemini = new GeminiRig({ repo, install: false });
    using copilot = new CopilotRig({ repo, install: false });
    claude.trust();
    codex.trust();
    gemini.trust();
    copilot.trust();

    expect((await claude.run(["-p", "say ok"])).status).toBe(0);
    expect((await codex.run(["say ok"])).status).toBe(0);
    expect((await gemini.run(["-p", "say ok"])).status).toBe(0);
    expect((await copilot.run(["-p", "say ok"])).status).toBe(0);

    const started = ledger(repo).filter((e) => e.event === "session.started");
    expect(started.map((e) => e.provider).sort()).toEqual(["claude-code", "codex", "copilot", "gemini"]);
    expect(new Set(started.map((e) => e.session_id)).size).toBe(4);
    const id = (provider: string) => String(started.find((e) => e.provider === provider)!.session_id);
    // Each briefing opens on its own episode, and on none of the others' (an earlier client's
    // continuation record may be what it resumes from: that is the account, not cross-talk).
    const briefings = {
      "claude-code": claude.mock.messages()[0]!.text,
      codex: codex.mock.requests()[0]!.text,
      gemini: gemini.mock.turns()[0]!.text,
      copilot: copilot.mock.messages()[0]!.text,
    } as const;
    for (const [provider, text] of Object.entries(briefings)) {
      expect(text.includes(`Episode ${id(provider)} (opened now)`), provider).toBe(true);
      for (const other of Object.keys(briefings).filter((p) => p !== provider))
        expect(text.includes(`Episode ${id(other)} (opened`), `${provider} opens on ${other}'s episode`).toBe(false);
    }
    // Three closed records, one per client; every ledger line of an episode belongs to its own client session.
    const records = readdirSync(repo.path(".ai/repo/sessions"))
      .filter((f) => f.endsWith(".md") && f !== "README.md")
      .map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"));
    expect(records.map((r) => /\nprovider: (\S+)\n/.exec(r)?.[1]).sort()).toEqual([
      "claude-code",
      "codex",
      "copilot",
      "gemini",
    ]);
    for (const e of ledger(repo).filter((l) => l.event === "provider.event.received" && l.session)) {
      expect(e.session).toBe(id(String(e.provider)));
    }
  }, 600_000);

  test("Claude Code and Copilot in one checkout with the person's own hook in each file: each client runs its own majordomus hooks once, the person's hooks run under both, and no client warns", async () => {
    const repo = layered();
    // The person's own hooks, there before majordomus: one in Claude Code's file (which Copilot reads too), one in
    // a Copilot hook file of theirs. Each writes which client ran it.
    const said = (tag: string) =>
      `echo "${tag} \${COPILOT_CLI:+copilot}\${CLAUDE_CODE_SESSION_ID:+claude-code}" >> "$(git rev-parse --show-toplevel)/.person-hooks"`;
    mkdirSync(repo.path(".claude"), { recursive: true });
    mkdirSync(repo.path(".github/hooks"), { recursive: true });
    writeFileSync(
      repo.path(".claude/settings.json"),
      `${JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: said("claude-file") }] }] } }, null, 2)}\n`,
    );
    writeFileSync(
      repo.path(".github/hooks/mine.json"),
      `${JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: "command", bash: said("copilot-file") }] } }, null, 2)}\n`,
    );
    writeFileSync(repo.path(".gitignore"), `${readFileSync(repo.path(".gitignore"), "utf8")}.person-hooks\n`);
    ok(repo.mj(["capture", "install", "--provider", "claude-code", "--merge"]));
    ok(repo.mj(["capture", "install", "--provider", "copilot"]));
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "Wire both");
    using copilot = new CopilotRig({ repo, install: false });
    using claude = new ClaudeRig({ repo });
    copilot.trust();
    claude.trust();

    const ran = await copilot.run(["-p", "say ok"]);
    expect(ran.status).toBe(0);
    expect(ran.stderr).not.toMatch(/could not be loaded|matcher cannot be empty|Warning/i);
    expect((await claude.run(["-p", "say ok"])).status).toBe(0);

    // The person's hooks: Claude Code's file under both clients, Copilot's file under Copilot.
    const person = readFileSync(repo.path(".person-hooks"), "utf8").trim().split("\n").sort();
    expect(person).toEqual(["claude-file claude-code", "claude-file copilot", "copilot-file copilot"]);
    // Ours: one start, one prompt and one end per client session, each under its own client.
    const lines = ledger(repo);
    const started = lines.filter((e) => e.event === "session.started");
    expect(started.map((e) => e.provider).sort()).toEqual(["claude-code", "copilot"]);
    for (const e of started) {
      const received = lines.filter(
        (l) => l.event === "provider.event.received" && l.provider_session === e.provider_session,
      );
      expect(received.map((l) => `${l.provider} ${l.provider_event}`).sort()).toEqual(
        ["end", "prompt", "start"].map((event) => `${e.provider} ${event}`),
      );
    }
    expect(closedTexts(repo).length).toBe(2);
  }, 600_000);

  test("a handover written in a Copilot session reaches the next Claude Code session, and one written there the next Copilot session, labelled", async () => {
    const repo = wired(["claude-code", "copilot"]);
    const fromCopilot = "Wire the tokenizer into src/ini.ts.";
    const fromClaude = "Cover the tokenizer's escapes in test/ini.test.ts.";
    using copilot = new CopilotRig({ repo, install: false, mock: { tool: handsOver("bash", fromCopilot) } });
    using claude = new ClaudeRig({ repo, mock: { tool: handsOver("Bash", fromClaude) } });
    copilot.trust();
    claude.trust();

    expect((await copilot.run(["-p", "work on the parser"])).status).toBe(0);
    expect((await claude.run(["-p", "what next?", "--allowedTools", "Bash"])).status).toBe(0);
    const briefedClaude = claude.mock.messages()[0]!.text;
    expect(briefedClaude).toMatch(LABEL);
    expect(briefedClaude).toContain(`> ${fromCopilot}`);

    expect((await copilot.run(["-p", "what next?"])).status).toBe(0);
    const briefedCopilot = copilot.mock.messages().at(-1)!.text;
    expect(briefedCopilot).toMatch(LABEL);
    expect(briefedCopilot).toContain(`> ${fromClaude}`);
    expect(briefedCopilot).not.toContain(`> ${fromCopilot}`);
    // Each written in its own client's episode.
    const lines = ledger(repo);
    const clientOf = (episode: unknown) =>
      lines.find((e) => e.event === "session.started" && e.session_id === episode)?.provider;
    const authored = lines.filter((e) => e.event === "task.handed_over" && e.how === "authored");
    expect(authored.map((e) => clientOf(e.session))).toEqual(["copilot", "claude-code"]);
  }, 600_000);
});
