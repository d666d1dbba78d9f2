// All three real clients in one checkout: three independent episodes, each keyed by its own client
// and session, each briefing naming its own, three closed records saying which client, no cross-talk.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { layered, ledger, ok } from "../support/layered.ts";
import { ClaudeRig } from "./rig.ts";
import { CodexRig } from "./codex-rig.ts";
import { GeminiRig } from "./gemini-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";

describe.skipIf(!ENABLED)("three clients in one checkout", () => {
  test("Claude Code, Codex and Gemini each get their own episode, briefing and record", async () => {
    const repo = layered();
    for (const provider of ["claude-code", "codex", "gemini"])
      ok(repo.mj(["capture", "install", "--provider", provider]));
    repo.git("add", ".claude", ".mcp.json", ".codex", ".gemini");
    repo.git("commit", "-q", "-m", "Wire three clients");
    using claude = new ClaudeRig({ repo });
    using codex = new CodexRig({ repo, install: false });
    using gemini = new GeminiRig({ repo, install: false });
    claude.trust();
    codex.trust();
    gemini.trust();

    expect((await claude.run(["-p", "say ok"])).status).toBe(0);
    expect((await codex.run(["say ok"])).status).toBe(0);
    expect((await gemini.run(["-p", "say ok"])).status).toBe(0);

    const started = ledger(repo).filter((e) => e.event === "session.started");
    expect(started.map((e) => e.provider).sort()).toEqual(["claude-code", "codex", "gemini"]);
    expect(new Set(started.map((e) => e.session_id)).size).toBe(3);
    const id = (provider: string) => String(started.find((e) => e.provider === provider)!.session_id);
    // Each briefing opens on its own episode, and on none of the others' (an earlier client's
    // continuation record may be what it resumes from: that is the account, not cross-talk).
    const briefings = {
      "claude-code": claude.mock.messages()[0]!.text,
      codex: codex.mock.requests()[0]!.text,
      gemini: gemini.mock.turns()[0]!.text,
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
    expect(records.map((r) => /\nprovider: (\S+)\n/.exec(r)?.[1]).sort()).toEqual(["claude-code", "codex", "gemini"]);
    for (const e of ledger(repo).filter((l) => l.event === "provider.event.received" && l.session)) {
      expect(e.session).toBe(id(String(e.provider)));
    }
  }, 300_000);
});
