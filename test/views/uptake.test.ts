// Uptake as a pure measure and view: what a Claude Code transcript shows the agent did, which of
// the named paths and commands it acted on and how early, and the report and page over closed
// records. Transcript rows are shaped as Claude Code 2.1.332 writes them.
import { describe, expect, test } from "bun:test";
import { linearity } from "../support/recheck.ts";
import { actionsOf, COMMAND, namedIn, runs, uptakeOf, type Action } from "../../src/transcript/uptake.ts";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratch } from "../support/repo.ts";
import { claudeActions, codexActions, geminiActions, inCheckout } from "../../src/transcript/actions.ts";
import { uptakeLines, uptakeReport } from "../../src/views/uptake.ts";
import { uptakeBody } from "../../src/views/page.ts";
import { gatherUptake, RECORD_PATH } from "../../src/facts/uptake.ts";

const ROOT = "/home/dev/project";
const prompt = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
let n = 0;
const call = (name: string, input: Record<string, unknown>, tokens = 10) => {
  const id = `toolu_${++n}`;
  return {
    id,
    row: JSON.stringify({
      type: "assistant",
      message: { id: `msg_${n}`, content: [{ type: "tool_use", id, name, input }], usage: { output_tokens: tokens } },
    }),
    result: (isError = false) =>
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, is_error: isError, content: "x" }] },
      }),
  };
};
const actions = (rows: string[]) => claudeActions(rows.join("\n"), inCheckout([ROOT]), { rows: 0 });

describe("what a transcript shows the agent did", () => {
  test("edits, reads and commands, with the turn, the calls and the output tokens before each; a failed call is not ok", () => {
    const read = call("Read", { file_path: `${ROOT}/src/ini.ts` }, 7);
    const edit = call("Write", { file_path: `${ROOT}/src/ini.ts`, content: "x" }, 5);
    const denied = call("Bash", { command: "npm test" }, 3);
    const outside = call("Edit", { file_path: "/etc/passwd" });
    const got = actions([
      prompt("go on"),
      read.row,
      read.result(),
      prompt("and now?"),
      edit.row,
      edit.result(),
      denied.row,
      denied.result(true),
      outside.row,
      outside.result(),
    ]);
    expect(got).toEqual([
      { kind: "read", target: "src/ini.ts", ok: true, turn: 1, calls: 0, tokens: 0 },
      { kind: "edit", target: "src/ini.ts", ok: true, turn: 2, calls: 1, tokens: 7 },
      { kind: "run", target: "npm test", ok: false, turn: 2, calls: 2, tokens: 12 },
    ]);
    // A torn line is no row; an unanswered call is not ok.
    const pending = call("Bash", { command: "git status" });
    expect(actions([prompt("x"), pending.row, '{"type":"assistant","mess'])).toEqual([
      { kind: "run", target: "git status", ok: false, turn: 1, calls: 0, tokens: 0 },
    ]);
  });

  test("Codex's rollout: a user message is a turn, a FileChange edits its paths, a CommandExecution runs its script", () => {
    const item = (item: Record<string, unknown>) =>
      JSON.stringify({ type: "event_msg", payload: { type: "item_completed", item } });
    const usage = (n: number) =>
      JSON.stringify({ type: "token_usage_record", payload: { usage: { output_tokens: n } } });
    const rows = [
      item({ type: "UserMessage", content: [{ type: "text", text: "go" }] }),
      usage(12),
      item({
        type: "CommandExecution",
        command: ["/bin/bash", "-lc", "cat src/ini.ts"],
        parsed_cmd: [{ type: "read", path: `${ROOT}/src/ini.ts` }],
        status: "completed",
        exit_code: 0,
      }),
      item({ type: "FileChange", changes: { [`${ROOT}/src/ini.ts`]: { type: "add" } }, status: "completed" }),
      usage(30),
      item({ type: "CommandExecution", command: ["/bin/bash", "-lc", "false"], status: "failed", exit_code: 1 }),
      item({ type: "FileChange", changes: { "/elsewhere/x.ts": { type: "add" } }, status: "completed" }),
    ];
    expect(codexActions(rows.join("\n"), inCheckout([ROOT]), { rows: 0 })).toEqual([
      { kind: "run", target: "cat src/ini.ts", ok: true, turn: 1, calls: 0, tokens: 12 },
      { kind: "read", target: "src/ini.ts", ok: true, turn: 1, calls: 0, tokens: 12 },
      { kind: "edit", target: "src/ini.ts", ok: true, turn: 1, calls: 1, tokens: 12 },
      { kind: "run", target: "false", ok: false, turn: 1, calls: 2, tokens: 42 },
    ]);
  });

  test("Gemini's chat file: a message written again counts once, in its last version; a tool's answer is no turn", () => {
    const msg = (m: Record<string, unknown>) => JSON.stringify(m);
    const call = (name: string, args: Record<string, unknown>, status = "success") => ({
      id: name,
      name,
      args,
      status,
    });
    const rows = [
      JSON.stringify({ sessionId: "s", kind: "main" }),
      msg({ id: "u0", type: "user", content: [{ text: "<session_context>\nThis is the Gemini CLI." }] }),
      msg({ id: "u1", type: "user", content: [{ text: "<hook_context>briefing</hook_context>\n\ngo" }] }),
      msg({ id: "g1", type: "gemini", content: "", tokens: { output: 5 } }),
      msg({
        id: "g1",
        type: "gemini",
        content: "",
        tokens: { output: 5 },
        toolCalls: [
          call("read_file", { file_path: "src/ini.ts" }),
          call("write_file", { file_path: `${ROOT}/src/ini.ts` }),
        ],
      }),
      msg({ id: "u2", type: "user", content: [{ functionResponse: { id: "read_file" } }] }),
      msg({
        id: "g2",
        type: "gemini",
        tokens: { output: 7 },
        toolCalls: [call("replace", { file_path: "a.ts" }, "error")],
      }),
      msg({
        id: "g3",
        type: "gemini",
        tokens: { output: 1 },
        toolCalls: [call("run_shell_command", { command: "npm test" })],
      }),
    ];
    expect(geminiActions(rows.join("\n"), inCheckout([ROOT]), { rows: 0 })).toEqual([
      { kind: "read", target: "src/ini.ts", ok: true, turn: 1, calls: 0, tokens: 0 },
      { kind: "edit", target: "src/ini.ts", ok: true, turn: 1, calls: 1, tokens: 0 },
      { kind: "edit", target: "a.ts", ok: false, turn: 1, calls: 2, tokens: 5 },
      { kind: "run", target: "npm test", ok: true, turn: 1, calls: 3, tokens: 12 },
    ]);
  });

  test("what a Next Action names: paths, a symbol's file, package scripts and backticked commands; prose is not", () => {
    // Code spans first, then the prose of the line.
    expect(namedIn("Wire `parse()` in src/ini.ts, then run `npm test` and `git status --short`.")).toEqual([
      "npm test",
      "src/ini.ts",
      "git status --short",
    ]);
    expect(namedIn("Think about the design again and ask the person.")).toEqual([]);
    // A 100-step Next Action names at most as many as a record keeps claims.
    const steps = Array.from({ length: 100 }, (_, i) => `${i + 1}. run \`make step${i}\` on src/s${i}.ts`).join("\n");
    expect(namedIn(steps).length).toBe(24);
    // Both rules are linear: a ReDoS checker calls them safe (how they grow is not timed here).
    for (const rule of [COMMAND, RECORD_PATH])
      expect(linearity(rule.source, rule.flags).status, rule.source).toBe("safe");
  });
});

const act = (kind: Action["kind"], target: string, turn = 1, calls = 0, tokens = 0, ok = true): Action => ({
  kind,
  target,
  ok,
  turn,
  calls,
  tokens,
});

describe("the verdict", () => {
  const named = ["src/ini.ts", "npm test"];
  test("acted, partly, ignored, with how early and the re-reads of cited files before the first edit", () => {
    const all = uptakeOf("h.md", named, ["src/ini.ts", "README.md"], {
      cut: false,
      actions: [
        act("read", "README.md"),
        act("read", "src/ini.ts", 1, 1),
        act("edit", "src/other.ts", 2, 2, 40),
        act("read", "README.md", 2, 3),
        act("edit", "src/ini.ts", 2, 4, 90),
        act("run", "npm test -- --watch=false", 3, 5, 120),
      ],
    });
    expect(all).toEqual({
      state: "acted",
      handed: "h.md",
      named,
      acted_on: named,
      turn: 2,
      tool_calls_before: 4,
      tokens_before: 90,
      rereads: 2,
    });
    const some = uptakeOf("h.md", named, [], { cut: false, actions: [act("run", "cd x && npm test")] });
    expect(some).toMatchObject({ state: "partly", acted_on: ["npm test"], turn: 1 });
    const none = uptakeOf("h.md", named, [], {
      cut: false,
      actions: [act("edit", "src/other.ts"), act("run", "npm testing")],
    });
    expect(none).toMatchObject({ state: "ignored", acted_on: [] });
    expect(none.turn).toBeUndefined();
    // A failed edit of the named file, or only reading it, is not acting on it.
    const tried = uptakeOf("h.md", ["src/ini.ts"], [], {
      cut: false,
      actions: [act("edit", "src/ini.ts", 1, 0, 0, false), act("read", "src/ini.ts")],
    });
    expect(tried.state).toBe("ignored");
    // A folder named: an edit inside it counts.
    expect(uptakeOf("h.md", ["src/parser/"], [], { cut: false, actions: [act("edit", "src/parser/a.ts")] }).state).toBe(
      "acted",
    );
  });

  test("not provable: nothing named, no transcript, or a transcript read only in part before the whole was seen", () => {
    expect(uptakeOf("h.md", [], [], { cut: false, actions: [act("edit", "src/ini.ts")] })).toMatchObject({
      state: "not_provable",
      cause: "the Next Action names no path or command to look for",
    });
    expect(uptakeOf("h.md", named, [], { cause: "the client named no transcript for this session" })).toMatchObject({
      state: "not_provable",
      cause: "the client named no transcript for this session",
    });
    expect(uptakeOf("h.md", named, [], { cut: true, actions: [act("edit", "src/ini.ts")] }).state).toBe("not_provable");
    expect(uptakeOf("h.md", ["src/ini.ts"], [], { cut: true, actions: [act("edit", "src/ini.ts")] }).state).toBe(
      "acted",
    );
  });
});

test("a handed path the start hook would not write (a tampered ledger line) is read nowhere: not provable", async () => {
  const episode = { provider: "claude-code", transcript_path: "/nonexistent.jsonl" } as never;
  for (const handed of ["../../etc/passwd.md", "/etc/x.md", ".ai/../../x.md", ".ai/local/state/handovers/x.txt"])
    expect(await gatherUptake("/home/dev/project", episode, handed), handed).toMatchObject({
      state: "not_provable",
      cause: "the handed record's path is not one the start hook writes",
    });
  expect(await gatherUptake("/home/dev/project", episode, ".ai/local/state/handovers/gone.md")).toMatchObject({
    state: "not_provable",
    cause: "the handed record can no longer be read: unreadable: it does not exist",
  });
});

describe("uptake over closed records", () => {
  const meta = (provider: string, branch: string, uptake?: Record<string, unknown>) => ({
    schema: "session/v1",
    provider,
    branch,
    ...(uptake ? { uptake } : {}),
  });
  const metas = [
    meta("claude-code", "main", { state: "acted", turn: 1 }),
    meta("claude-code", "main", { state: "acted", turn: 4 }),
    meta("claude-code", "feature", { state: "ignored" }),
    meta("copilot", "main", { state: "not_provable" }),
    meta("codex", "main"),
    meta("claude-code", "main", { state: "bogus" }),
    meta("gemini", "old", { state: "acted", turn: 9 }),
  ];

  test("per client and per branch, the newest `last` only; a state it does not know is not counted as handed", () => {
    const r = uptakeReport(metas, 6);
    expect([r.sessions, r.handed]).toEqual([6, 4]);
    expect(r.by_client[0]).toEqual({
      key: "claude-code",
      sessions: 4,
      handed: 3,
      acted: 2,
      partly: 0,
      ignored: 1,
      not_provable: 0,
      median_turn: 2.5,
    });
    expect(r.by_client.find((c) => c.key === "codex")).toMatchObject({ handed: 0, median_turn: null });
    expect(r.by_branch.map((b) => [b.key, b.sessions])).toEqual([
      ["main", 5],
      ["feature", 1],
    ]);
    expect(uptakeLines(r).join("\n")).toContain("in the last 6 closed session(s): 4 were handed one.");
    expect(uptakeLines(uptakeReport([], 50))[0]).toStartWith("No closed session record yet");
    // A tracked record's provider or branch holding a newline starts no line of the report.
    const forged = uptakeLines(
      uptakeReport([meta("x\nmajordomus: all checks passed", "main\nok", { state: "acted", turn: 1 })], 50),
    );
    expect(forged.some((l) => l.startsWith("majordomus: all checks passed"))).toBe(false);
    expect(forged.join("\n")).toContain('"x\\nmajordomus: all checks passed"');
  });

  test("the page draws a bar per client that was handed one, its counts in words beside it, with no script", () => {
    const card = uptakeBody(uptakeReport(metas, 6));
    expect(card).toContain(
      "<strong>claude-code</strong>: 3 of 4 handed one; 2 acted, 0 partly, 1 ignored, 0 not provable; median turn to the first action 2.5",
    );
    expect(card).toContain('<span style="width:66.7%;background:#6b8e4e" title="acted: 2">');
    expect(card).not.toContain("codex");
    expect(card).not.toContain("<script");
    expect(uptakeBody(uptakeReport([meta("codex", "main")], 50))).toContain(
      "none of the last 1 closed session(s) was handed an authored Next Action",
    );
  });
});

describe("what counts, and what cannot be read", () => {
  test("a command counts only when run as that command: not echoed, not in a comment, not inside another word", () => {
    for (const line of [
      "npm test",
      "cd x && npm test -- --watch=false",
      "FOO=1 npm test",
      "(npm test)",
      "a; time npm test",
    ])
      expect(`${line}: ${runs(line, "npm test")}`).toBe(`${line}: true`);
    for (const line of [
      "echo npm test",
      "# npm test",
      "ls # then npm test",
      "npm testing",
      "echo 'npm test'",
      "npx npm-test",
    ])
      expect(`${line}: ${runs(line, "npm test")}`).toBe(`${line}: false`);
  });

  test("no tool call at all (the model never answered, or only talked): not provable, never ignored", () => {
    expect(uptakeOf("h.md", ["src/ini.ts"], [], { cut: false, actions: [] })).toMatchObject({
      state: "not_provable",
      cause: "the session made no tool call: there is nothing to measure",
    });
  });

  test("an edit the client reports that git does not show: not counted", () => {
    const edits = { cut: false, actions: [act("edit", "src/ini.ts")] };
    expect(uptakeOf("h.md", ["src/ini.ts"], [], edits, new Set(["src/other.ts"])).state).toBe("ignored");
    expect(uptakeOf("h.md", ["src/ini.ts"], [], edits, new Set(["src/ini.ts"])).state).toBe("acted");
  });

  test("rows past the bounds (a line of 2 MB, one nested 100 deep) are not parsed, and the verdict says what it could not see", () => {
    const deep = `{"type":"assistant","message":{"content":[{"type":"tool_use","input":${"[".repeat(100)}${"]".repeat(100)}}],"x":"${"y".repeat(5000)}"}}`;
    const big = `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"${"x".repeat(2 * 1024 * 1024)}"}}]}}`;
    const unseen = { rows: 0 };
    expect(claudeActions([deep, big].join("\n"), inCheckout([ROOT]), unseen)).toEqual([]);
    expect(unseen.rows).toBe(2);
  });

  test("a transcript behind a linked folder, outside the client's folder, a FIFO, random bytes or /proc: not provable, and nothing outside is opened", () => {
    const home = scratch("majordomus-uptake-home-");
    const was = process.env.CLAUDE_CONFIG_DIR;
    try {
      process.env.CLAUDE_CONFIG_DIR = join(home, ".claude");
      const projects = join(home, ".claude", "projects");
      mkdirSync(join(projects, "p"), { recursive: true });
      mkdirSync(join(home, ".ssh"));
      const secret = call("Write", { file_path: `${ROOT}/src/ini.ts`, content: "x" }, 1);
      writeFileSync(join(home, ".ssh", "id_rsa.jsonl"), [secret.row, secret.result()].join("\n"));
      symlinkSync(join(home, ".ssh"), join(projects, "x"));
      Bun.spawnSync(["mkfifo", join(projects, "p", "fifo.jsonl")]);
      writeFileSync(
        join(projects, "p", "noise.jsonl"),
        Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
      );
      for (const path of [
        join(projects, "x", "id_rsa.jsonl"),
        join(home, ".ssh", "id_rsa.jsonl"),
        join(projects, "p", "fifo.jsonl"),
        join(projects, "p", "noise.jsonl"),
        "/proc/self/environ",
      ]) {
        const verdict = uptakeOf("h.md", ["src/ini.ts"], [], actionsOf("claude-code", path, [ROOT]));
        expect(`${path.replace(home, "~")}: ${verdict.state}`).toBe(`${path.replace(home, "~")}: not_provable`);
      }
    } finally {
      if (was === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = was;
      rmSync(home, { recursive: true, force: true });
    }
  });
});
