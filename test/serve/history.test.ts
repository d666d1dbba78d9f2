// The history tools of `majordomus mcp` against a transcript Claude Code 2.1.332 wrote (the captured
// sample: three runs, a /compact between them), through the compiled binary over stdio, as the client
// connects to it: list, read, windows across the compaction, and every refusal.
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { BIN, PROJECT } from "../support/env.ts";
import { captured, fire } from "../support/capture.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { parseTranscript } from "../../src/transcript/claude.ts";

const SAMPLE = join(PROJECT, "test", "fixtures", "claude-code", "transcripts", "sample.jsonl");
const SESSION = "d30bc5e7-8c47-49de-9f28-8bd7211a9292";

/** A client config folder with this session's transcript where Claude Code keeps it, and a repository whose start event named it. */
function world(text = readFileSync(SAMPLE, "utf8")) {
  const config = scratch("majordomus-claude-config-");
  const dir = join(config, "projects", "-home-dev-project");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${SESSION}.jsonl`);
  writeFileSync(path, text);
  const repo = captured();
  fire(repo, "start", {
    session_id: SESSION,
    transcript_path: path,
    source: "startup",
    hook_event_name: "SessionStart",
  });
  return { repo, config, path, env: { CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_SESSION_ID: SESSION } };
}

/** `majordomus mcp` as a client starts it (`launch`: how, when not directly), with a call that returns the tool's text. */
async function tools(repo: Repo, env: Record<string, string>, launch = { command: BIN, args: ["mcp"] }) {
  const transport = new StdioClientTransport({
    ...launch,
    cwd: repo.dir,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    return { error: r.isError === true, text: r.content[0]!.text, json: () => JSON.parse(r.content[0]!.text) };
  };
  return { call, [Symbol.asyncDispose]: () => transport.close() };
}

describe("history tools over MCP", () => {
  test("windows: split at the /compact boundary, @previous resolving to the one before", async () => {
    const w = world();
    using _ = w.repo;
    await using t = await tools(w.repo, w.env);
    const windows = (await t.call("history_windows")).json();
    expect(windows.current).toBe(1);
    expect(windows.previous).toBe(0);
    expect(windows.windows.map((x: { window: number; trigger?: string }) => [x.window, x.trigger ?? null])).toEqual([
      [0, null],
      [1, "manual"],
    ]);
    const previous = (await t.call("history_list", { window: "@previous", limit: 100 })).json();
    expect(previous.items.every((i: { window: number }) => i.window === 0)).toBe(true);
    expect(previous.items.find((i: { kind: string }) => i.kind === "prompt").preview).toBe("first: check the tree");
    const current = (await t.call("history_list", { window: "@current", limit: 100 })).json();
    expect(current.items[0].kind).toBe("compact_boundary");
    expect(current.items.some((i: { preview: string }) => i.preview === "after compaction")).toBe(true);
  });

  test("list: literal search and paging; read: one message or a range, text only, never a raw payload", async () => {
    const w = world();
    using _ = w.repo;
    await using t = await tools(w.repo, w.env);
    const found = (await t.call("history_list", { query: "AFTER COMPACTION" })).json();
    expect(found.total).toBe(1);
    const seq = found.items[0].seq;
    const one = (await t.call("history_read", { seq })).json();
    expect(one.messages).toEqual([
      expect.objectContaining({ seq, role: "user", kind: "prompt", text: "after compaction" }),
    ]);

    const all = (await t.call("history_list", { limit: 100 })).json();
    const pages = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = (await t.call("history_list", { limit: 7, offset })).json();
      pages.push(...page.items.map((i: { seq: number }) => i.seq));
      offset = page.next_offset;
    }
    expect(pages).toEqual(all.items.map((i: { seq: number }) => i.seq));
    expect(all.total).toBe(all.items.length);

    // The tool call shows its name, not its input; its result shows its text, not the structured record.
    const call = all.items.find((i: { preview: string }) => i.preview === "[tool call: Bash]");
    expect(call).toBeDefined();
    const range = (await t.call("history_read", { seq: call.seq, to: call.seq + 1 })).json();
    const joined = JSON.stringify(range);
    expect(joined).not.toContain("mock no-op");
    expect(joined).not.toContain("toolUseResult");
    expect(range.messages[1].text).toContain("(Bash completed with no output)");
    // An attachment shows the client's rendering only.
    const attachment = all.items.find((i: { kind: string }) => i.kind === "deferred_tools_delta");
    const rendered = (await t.call("history_read", { seq: attachment.seq })).json().messages[0].text;
    expect(rendered).toContain("The following deferred tools are now available via ToolSearch");
    expect(rendered).not.toContain("addedNames");
  });

  test("a secret in the transcript is redacted and a control character escaped in what the tools show", async () => {
    const token = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;
    const extra = JSON.stringify({
      type: "user",
      uuid: "u-secret",
      timestamp: "t",
      message: { role: "user", content: `my token is ${token} and \u001b[31mred` },
    });
    const w = world(`${readFileSync(SAMPLE, "utf8")}${extra}\n`);
    using _ = w.repo;
    await using t = await tools(w.repo, w.env);
    const found = (await t.call("history_list", { query: "my token is" })).json();
    const read = (await t.call("history_read", { seq: found.items[0].seq })).json().messages[0].text as string;
    expect(read).not.toContain(token);
    expect(read).toContain("my token is");
    expect(read).not.toContain("\u001b");
    expect(read).toContain("\\u001b[31mred");
  });

  test("an identifier that once stalled the name-and-value rule, before a password, in 20 messages: list and read return none of the passwords", async () => {
    const words = [
      "authenticationMiddlewareConfigurationOptions",
      "useDesignSystemThemeProviderContextValue",
      "PASSWORD_RESET_TOKEN_EXPIRATION_SECONDS_DEFAULT",
      "src/components/AuthenticationProviderWrapper.tsx",
    ];
    const rows = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({
        type: "user",
        uuid: `u-id-${i}`,
        timestamp: "t",
        message: { role: "user", content: `see ${words[i % 4]} then DB_PASSWORD=Pr0dDbP4ss${i}x` },
      }),
    );
    const w = world(`${readFileSync(SAMPLE, "utf8")}${rows.join("\n")}\n`);
    using _ = w.repo;
    await using t = await tools(w.repo, w.env);
    const found = (await t.call("history_list", { query: "DB_PASSWORD", limit: 100 })).json();
    expect(found.total).toBe(20);
    const read = (await t.call("history_read", { seq: found.items[0].seq, to: found.items[19].seq })).text;
    expect(JSON.stringify(found)).not.toContain("Pr0dDbP4ss");
    expect(read).not.toContain("Pr0dDbP4ss");
    expect(read).toContain("DB_PASSWORD=[redacted:assignment]");
  });

  test("nothing read is stored: no file of the layer holds a line of the transcript afterwards", async () => {
    const w = world();
    using _ = w.repo;
    {
      await using t = await tools(w.repo, w.env);
      await t.call("history_read", { seq: 1, to: 20 });
      await t.call("history_list", { query: "tree" });
    }
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    for (const f of files(w.repo.path(".ai"))) {
      const text = readFileSync(f, "utf8");
      expect(text.includes("first: check the tree") || text.includes("after compaction")).toBe(false);
    }
  });

  test("refusals: no session, an ended session, a missing file, a path outside the client's folder, a link, an unknown row, a malformed line", async () => {
    const w = world();
    using _ = w.repo;
    const refused = async (env: Record<string, string>, pattern: RegExp) => {
      await using t = await tools(w.repo, env);
      const r = await t.call("history_windows");
      expect(r.error).toBe(true);
      expect(r.text).toMatch(pattern);
    };
    await refused({ CLAUDE_CONFIG_DIR: w.config, CLAUDE_CODE_SESSION_ID: "" }, /no CLAUDE_CODE_SESSION_ID/);
    await refused(
      { ...w.env, CLAUDE_CODE_SESSION_ID: "another-session" },
      /no open episode here belongs to Claude Code session another-session/,
    );
    // The same path is outside another config folder: it is not the client's own transcript there.
    await refused({ ...w.env, CLAUDE_CONFIG_DIR: scratch("majordomus-other-config-") }, /is not .*projects.*\.jsonl/);

    // A link where the transcript should be is not followed.
    const target = join(scratch("majordomus-elsewhere-"), "secret.txt");
    writeFileSync(target, "not a transcript\n");
    const linked = w.path.replace(".jsonl", ".bak");
    copyFileSync(w.path, linked);
    const { rmSync } = await import("node:fs");
    rmSync(w.path);
    await refused(w.env, /is not there/);
    symlinkSync(target, w.path);
    await refused(w.env, /not a plain file/);
    rmSync(w.path);

    const sample = readFileSync(SAMPLE, "utf8");
    writeFileSync(w.path, `${sample}{"type":"hologram","uuid":"x"}\n`);
    await refused(w.env, /line 72: a row of a type this reader does not know \("hologram"\)/);
    writeFileSync(w.path, sample.replace("\n", "\n{not json\n"));
    await refused(w.env, /line 2 is not valid JSON/);
    // A last line still being written is tolerated.
    writeFileSync(w.path, `${sample}{"type":"user","mess`);
    {
      await using t = await tools(w.repo, w.env);
      expect((await t.call("history_windows")).error).toBe(false);
    }
    expect(existsSync(linked)).toBe(true);
  });

  test("the reader alone: thinking is never shown, a subagent's rows are not the session's, a row written twice keeps its first number", () => {
    const rows = [
      { type: "user", uuid: "u1", timestamp: "t1", message: { role: "user", content: "hello" } },
      {
        type: "assistant",
        uuid: "a1",
        timestamp: "t2",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "SECRET-THOUGHT" },
            { type: "text", text: "hi" },
          ],
        },
      },
      {
        type: "assistant",
        uuid: "s1",
        isSidechain: true,
        timestamp: "t3",
        message: { role: "assistant", content: "from a subagent" },
      },
      { type: "user", uuid: "u1", timestamp: "t1", message: { role: "user", content: "hello" } },
      {
        type: "system",
        subtype: "compact_boundary",
        uuid: "b1",
        timestamp: "t4",
        content: "Conversation compacted",
        compactMetadata: { trigger: "auto" },
      },
      {
        type: "user",
        uuid: "u2",
        timestamp: "t5",
        message: { role: "user", content: "# majordomus fresh window s-1:1" },
      },
    ];
    const t = parseTranscript(rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    expect(t.messages.map((m) => [m.seq, m.uuid, m.window])).toEqual([
      [1, "u1", 0],
      [2, "a1", 0],
      [3, "b1", 1],
      [4, "u2", 1],
    ]);
    expect(t.messages[1]!.text).toBe("hi");
    expect(JSON.stringify(t)).not.toContain("SECRET-THOUGHT");
    expect(t.windows).toEqual([
      { window: 0, from_seq: 1, to_seq: 2, messages: 2, started_at: "t1" },
      { window: 1, from_seq: 3, to_seq: 4, messages: 2, started_at: "t4", trigger: "auto" },
    ]);
    expect(() =>
      parseTranscript(
        `${JSON.stringify({ type: "assistant", uuid: "z", message: { content: [{ type: "hologram" }] } })}\n`,
      ),
    ).toThrow(/content block of a type this reader does not know/);
  });
});

describe("which session's transcript", () => {
  test("a call may name the current session (the mod does, after a resume changed the id); a session without an open episode here is refused", async () => {
    const w = world();
    using _ = w.repo;
    // The server was started for another id (as `claude -c` leaves it); the call names the resumed one.
    await using t = await tools(w.repo, { ...w.env, CLAUDE_CODE_SESSION_ID: "started-as-this" });
    expect((await t.call("history_windows")).error).toBe(true);
    const named = await t.call("history_windows", { session: SESSION });
    expect(named.error).toBe(false);
    expect(named.json().session).toBe(SESSION);
    const other = await t.call("history_list", { session: "not-open-here" });
    expect(other.error).toBe(true);
    expect(other.text).toContain("no open episode here belongs to Claude Code session not-open-here");
  });
});

/**
 * Fire a start hook as another client would: from a client process of its own (another program,
 * here a second bun, whose shell then runs the hook), not from this test's process.
 */
function fireAsAnotherClient(repo: Repo, payload: Record<string, unknown>): void {
  const shim = join(repo.dir, ".claude", "hooks", "majordomus-session-start");
  const input = join(repo.dir, "..", "payload.json");
  writeFileSync(input, JSON.stringify(payload));
  const client = `const r = require("node:child_process").spawnSync("sh", ["-c", ${JSON.stringify(`'${shim}' < '${input}'; true`)}], { stdio: "inherit" }); process.exit(r.status ?? 1);`;
  const run = spawnSync(process.execPath, ["-e", client], {
    cwd: repo.dir,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` },
  });
  expect(run.status).toBe(0);
}

describe("a transcript only for its own client", () => {
  test("another client's open session, named in a call, is refused; the session this server was started for is served", async () => {
    const w = world();
    using _ = w.repo;
    const otherPath = join(w.config, "projects", "-home-dev-project", "other-session.jsonl");
    writeFileSync(
      otherPath,
      readFileSync(SAMPLE, "utf8").replaceAll("first: check the tree", "THE OTHER SESSION'S WORDS"),
    );
    fireAsAnotherClient(w.repo, {
      session_id: "other-session",
      transcript_path: otherPath,
      source: "startup",
      hook_event_name: "SessionStart",
    });
    await using t = await tools(w.repo, w.env);
    // The other session is open here, and listed: but it is another client's.
    expect((await t.call("episodes")).text).toContain("other-session");
    for (const name of ["history_windows", "history_list", "history_read"]) {
      const r = await t.call(name, { session: "other-session", ...(name === "history_read" ? { seq: 1 } : {}) });
      expect(r.error).toBe(true);
      expect(r.text).toContain("session other-session is not this client's");
      expect(r.text).not.toContain("THE OTHER SESSION'S WORDS");
    }
    expect((await t.call("history_windows")).error).toBe(false);
  });

  test("a process that sets the session's variable itself (any program started beside the client) is refused: the server must be that client's own", async () => {
    const w = world();
    using _ = w.repo;
    // Started through a shell that stays (not exec'd away), from this test: its client is that shell's parent, as for
    // any program the person starts from a terminal; the session's own hooks were fired by this test directly.
    {
      await using t = await tools(w.repo, w.env, { command: "bash", args: ["-c", `'${BIN}' mcp; true`] });
      // bash is a shell, so the server's client is this test process: the same as the hooks'. Served.
      expect((await t.call("history_list")).error).toBe(false);
    }
    // From another program (a second bun that starts the server): the variable names the session, the process does not own it.
    const starter = `const c = require("node:child_process").spawn(${JSON.stringify(BIN)}, ["mcp"], { stdio: "inherit" }); c.on("exit", (code) => process.exit(code ?? 0));`;
    await using stranger = await tools(w.repo, w.env, { command: process.execPath, args: ["-e", starter] });
    for (const name of ["history_windows", "history_list"]) {
      const r = await stranger.call(name);
      expect(r.error).toBe(true);
      expect(r.text).toContain("is not this client's");
    }
  });

  test("a folder on the way that is a link (inside the client's projects folder) is refused, never followed", async () => {
    const w = world();
    using _ = w.repo;
    const elsewhere = scratch("majordomus-elsewhere-");
    writeFileSync(join(elsewhere, `${SESSION}.jsonl`), readFileSync(SAMPLE, "utf8"));
    const { rmSync } = await import("node:fs");
    rmSync(join(w.config, "projects", "-home-dev-project"), { recursive: true });
    symlinkSync(elsewhere, join(w.config, "projects", "-home-dev-project"));
    await using t = await tools(w.repo, w.env);
    const r = await t.call("history_windows");
    expect(r.error).toBe(true);
    expect(r.text).toContain("a link on its way");
  });

  test("a transcript over the cap is read from its end: the windows before keep their numbers, the newest messages are served, a row over 8 MiB is a placeholder", async () => {
    const sample = readFileSync(SAMPLE, "utf8");
    const boundary = (i: number) =>
      JSON.stringify({
        type: "system",
        subtype: "compact_boundary",
        uuid: `old-b${i}`,
        timestamp: "t",
        content: "Conversation compacted",
        compactMetadata: { trigger: "auto" },
      });
    const filler = JSON.stringify({
      type: "user",
      uuid: "filler",
      timestamp: "t",
      message: { role: "user", content: "x".repeat(1024 * 1024) },
    });
    // 2 compactions, then ~40 MiB of rows written again (one uuid: one message), an oversized row, then the captured sample.
    const head = `${boundary(1)}\n${boundary(2)}\n${`${filler}\n`.repeat(40)}`;
    const huge = JSON.stringify({
      type: "user",
      uuid: "huge",
      timestamp: "t",
      message: { role: "user", content: "y".repeat(9 * 1024 * 1024) },
    });
    const w = world(`${head}${huge}\n${sample}`);
    using _ = w.repo;
    await using t = await tools(w.repo, w.env);
    const windows = (await t.call("history_windows")).json();
    expect(windows.read_from_byte).toBeGreaterThan(0);
    expect(windows.windows_before).toBe(2);
    expect(windows.windows[0].window).toBe(2);
    const list = (await t.call("history_list", { limit: 100 })).json();
    expect(list.items.some((i: { kind: string }) => i.kind === "unread")).toBe(true);
    expect(JSON.stringify(list)).toContain("first: check the tree");
    // Appended while the server runs: only the new rows are read, and they are served.
    const { appendFileSync } = await import("node:fs");
    appendFileSync(
      w.path,
      `${JSON.stringify({ type: "user", uuid: "later", timestamp: "t", message: { role: "user", content: "written after the first read" } })}\n`,
    );
    const again = (await t.call("history_list", { query: "written after the first read" })).json();
    expect(again.total).toBe(1);
    // 80 MB left for the disk to write back would slow every later test's flushes to disk: gone at once.
    (await import("node:fs")).rmSync(w.path);
  }, 300_000);
});
