// The session commands by hand: an episode opened beside the client's, its live context, its record.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { captured, fire } from "../support/capture.ts";
import { ok } from "../support/layered.ts";

describe("session commands", () => {
  test("a hand-opened episode: status, live context, snapshot path, close with a summary, list, show, latest", () => {
    using repo = captured();
    const started = JSON.parse(ok(repo.mj(["session", "start", "--worker", "agent-7", "--json"])).stdout);
    expect(started).toMatchObject({ kept: false, episode: { opened_by: "hand", worker: "agent-7" } });
    const opened = started.episode;
    expect(repo.mj(["session", "start"]).status).toBe(15);
    expect(JSON.parse(ok(repo.mj(["session", "start", "--if-open", "keep", "--json"])).stdout).kept).toBe(true);
    // A client window beside it gets its own episode; this process (no client session) is the hand one's.
    fire(repo, "start", { session_id: "window-a", source: "startup" });
    const status = JSON.parse(ok(repo.mj(["session", "status", "--json"])).stdout);
    expect(status.current.session_id).toBe(opened.session_id);
    expect(status.others.map((o: { provider_session: string }) => o.provider_session)).toEqual(["window-a"]);

    repo.commit("work on it", "src/a.ts");
    ok(repo.mj(["decision", "Keep it small"]));
    const live = JSON.parse(ok(repo.mj(["session", "context", "--json"])).stdout);
    expect(live.git).toMatchObject({ label: "advanced", commits_since: 1 });
    expect(live.recorded.decisions).toEqual(["Keep it small"]);
    const snapshot = ok(repo.mj(["session", "context", "--path"])).stdout.trim();
    expect(existsSync(snapshot)).toBe(true);

    const path = ok(
      repo.mj(["session", "close"], { input: "# What Happened\nA small change, by hand.\n" }),
    ).stdout.trim();
    expect(readFileSync(repo.path(path), "utf8")).toContain("# What Happened\nA small change, by hand.");
    expect(readFileSync(repo.path(path), "utf8")).toContain("decisions:\n  - Keep it small\n");
    expect(readFileSync(snapshot, "utf8")).toContain("\n## Close\n");
    expect(repo.mj(["session", "close"]).status).toBe(12);
    expect(ok(repo.mj(["session", "close", "--if-none", "ignore"])).stdout).toBe("");

    expect(ok(repo.mj(["session", "list"])).stdout).toContain(opened.session_id);
    expect(ok(repo.mj(["session", "show", opened.session_id])).stdout).toContain(`session_id: ${opened.session_id}`);
    expect(ok(repo.mj(["session", "latest", "--path"])).stdout.trim()).toBe(repo.path(path));
    expect(ok(repo.mj(["session", "context", opened.session_id])).stdout).toContain("is closed");
    expect(repo.mj(["session", "show", "s-nope"]).status).toBe(12);
    // The id is quoted as given (an empty one said so), its control characters escaped.
    expect(repo.mj(["session", "show", "s-nope"]).stderr).toContain('no closed session record for "s-nope"');
    expect(repo.mj(["session", "show", ""]).stderr).toContain("no closed session record for an empty id");
    expect(repo.mj(["session", "show", "a\u001b[31mb"]).stderr).toContain('for "a\\u001b[31mb"');
  });

  test("a summary that sets identity fields is refused (10) and nothing is closed", () => {
    using repo = captured();
    ok(repo.mj(["session", "start"]));
    const run = repo.mj(["session", "close"], { input: "session_id: forged\n" });
    expect(run.status).toBe(10);
    expect(JSON.parse(ok(repo.mj(["session", "status", "--json"])).stdout).current).not.toBeNull();
  });
});

describe("a client that runs another client's hook file", () => {
  test("Copilot running Claude Code's hooks (COPILOT_CLI set, not Claude Code's own session): our Claude Code shims do nothing; Claude Code's own calls are answered", () => {
    using repo = captured();
    const before = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8");
    // As Copilot 1.0.102 runs .claude/settings.json's hooks: Claude-shaped payloads, COPILOT_CLI=1.
    const copilot = { COPILOT_CLI: "1", COPILOT_PROJECT_DIR: repo.dir, CLAUDE_PROJECT_DIR: repo.dir };
    for (const [shim, payload] of [
      ["start", { hook_event_name: "SessionStart", session_id: "cop-1", source: "new" }],
      ["prompt", { hook_event_name: "UserPromptSubmit", session_id: "cop-1", prompt: "hello" }],
      ["end", { hook_event_name: "SessionEnd", session_id: "cop-1", reason: "complete" }],
    ] as const) {
      const run = fire(repo, shim, payload, copilot);
      expect(`${shim} ${run.status} ${run.stdout}`).toBe(`${shim} 0 `);
    }
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).toBe(before);
    // Claude Code itself names its own session in CLAUDE_CODE_SESSION_ID: answered, even beside COPILOT_CLI
    // (Claude Code started from a Copilot agent's shell).
    const own = fire(
      repo,
      "start",
      { hook_event_name: "SessionStart", session_id: "cc-1", source: "startup" },
      { ...copilot, CLAUDE_CODE_SESSION_ID: "cc-1" },
    );
    expect(own.stdout).toContain("Episode ");
  });
});
