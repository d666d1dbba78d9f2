// The read side as its clients use it: the SDK's own MCP client over stdio (`majordomus mcp`) and
// over Streamable HTTP (`majordomus serve`), the JSON API validated against share/schemas/api/,
// and the refusals that keep a web page elsewhere out. Every answer tells the briefing's account.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { networkInterfaces } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { validate, type Schema } from "../../src/lib/schema.ts";
import { BIN, PROJECT } from "../support/env.ts";
import { captured, fire } from "../support/capture.ts";
import { startServe, type Started } from "../support/serve.ts";
import { ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

const SCHEMAS = join(PROJECT, "share", "schemas", "api");
const schemaOf = (kind: string) => JSON.parse(readFileSync(join(SCHEMAS, `${kind}.schema.json`), "utf8")) as Schema;
function valid(kind: string, doc: Record<string, unknown>): Record<string, unknown> {
  const withSchema = { schema: `majordomus/api-${kind}/v1`, ...doc };
  const problems = validate(schemaOf(kind), withSchema);
  if (problems.length > 0) throw new Error(`${kind}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  return doc;
}

const NEXT = "Wire the config loader into src/main.ts and run the tests.";
const HANDOVER = `# Objective\nMake the greeting configurable.\n\n# Current State\nThe loader exists.\n\n# Next Action\n${NEXT}\n`;

/** A repository with an open episode (a client session), an authored handover inside it, a closed episode and an open question. */
function busy(): Repo {
  const repo = captured();
  fire(repo, "start", { session_id: "cc-old", source: "startup" });
  fire(repo, "end", { session_id: "cc-old", reason: "prompt_input_exit" });
  fire(repo, "start", { session_id: "cc-now", source: "startup" });
  ok(repo.mj(["start", "make the greeting configurable", "--scope", "src"]));
  ok(repo.mj(["handover", "--no-task"], { input: HANDOVER, env: { CLAUDE_CODE_SESSION_ID: "cc-now" } }));
  ok(repo.mj(["question", "add", "which file format?"]));
  return repo;
}

const text = (result: unknown) => (result as { content: Array<{ type: string; text: string }> }).content[0]!.text;

let repo: Repo;
beforeAll(() => {
  repo = busy();
});
afterAll(() => repo[Symbol.dispose]());

describe("majordomus mcp (stdio, the SDK's client)", () => {
  test("lists its read-only tools and resource, and each answer carries the briefing's account", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: BIN,
        args: ["mcp"],
        cwd: repo.dir,
        env: { ...process.env } as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.map((t) => t.name).sort()).toEqual([
        "context",
        "continuity",
        "episodes",
        "handovers",
        "history_list",
        "history_read",
        "history_windows",
      ]);
      for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });

      const continuity = valid(
        "continuity",
        JSON.parse(text(await client.callTool({ name: "continuity", arguments: {} }))),
      );
      expect(continuity.handover).toMatchObject({ how: "authored", labels: "exact · fresh", next_action: NEXT });
      expect(
        (continuity.episodes as { open: Array<{ provider_session: string }> }).open.map((e) => e.provider_session),
      ).toEqual(["cc-now"]);
      expect(continuity.blockers).toEqual([
        { number: 1, text: "which file format?", task_id: expect.stringMatching(/^t-/) },
      ]);
      expect((continuity.task as { task: string }).task).toBe("make the greeting configurable");

      const episodes = valid("episodes", JSON.parse(text(await client.callTool({ name: "episodes", arguments: {} }))));
      expect((episodes.closed as Array<{ provider_session: string; outcome: string }>)[0]).toMatchObject({
        provider_session: "cc-old",
        outcome: "closed",
      });
      const handovers = valid(
        "handovers",
        JSON.parse(text(await client.callTool({ name: "handovers", arguments: {} }))),
      );
      expect((handovers.candidates as Array<{ verdict: string }>).some((c) => c.verdict === "selected")).toBe(true);
      const context = text(await client.callTool({ name: "context", arguments: { budget_lines: 80 } }));
      expect(context).toContain("# majordomus context");
      expect(context.split("\n").length).toBeLessThanOrEqual(80);

      const resource = await client.readResource({ uri: "majordomus://continuity" });
      expect(JSON.parse((resource.contents[0] as { text: string }).text).handover.next_action).toBe(NEXT);

      const unknown = await client
        .callTool({ name: "write_everything", arguments: {} })
        .catch((e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] }));
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain("write_everything");
    } finally {
      await client.close();
    }
  }, 300_000);

  test("a malformed line is answered with a JSON-RPC error, and the server goes on", () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const run = spawnSync(BIN, ["mcp"], {
      cwd: repo.dir,
      input: `this is not json\n${init}\n`,
      encoding: "utf8",
      timeout: 120_000,
    });
    const answers = run.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
    expect(answers[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(answers.find((a) => a.id === 1)?.result?.serverInfo?.name).toBe("majordomus");
  });

  test("every message JSON-RPC calls invalid gets its error (-32600, -32700), a line over 10 MiB is answered and skipped, and the requests after each are answered", () => {
    const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
    const bad = [
      "[]",
      "null",
      "5",
      '"text"',
      JSON.stringify({ jsonrpc: "2.0", id: 7 }),
      JSON.stringify([{ jsonrpc: "2.0", id: 8, method: "ping" }]),
      JSON.stringify({ jsonrpc: "1.0", id: 9, method: "ping" }),
      "{not json",
      "a".repeat(11 * 1024 * 1024),
    ];
    const input = `${bad.flatMap((line, i) => [line, ping(100 + i)]).join("\n")}\n`;
    const run = spawnSync(BIN, ["mcp"], {
      cwd: repo.dir,
      input,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const answers = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number | null; result?: unknown; error?: { code: number; message: string } });
    const errors = answers.filter((a) => a.error);
    expect(errors.map((e) => e.error!.code)).toEqual([
      -32600, -32600, -32600, -32600, -32600, -32600, -32600, -32700, -32600,
    ]);
    expect(errors.map((e) => e.id)).toEqual([null, null, null, null, 7, null, 9, null, null]);
    expect(errors.at(-1)!.error!.message).toContain("over 10 MiB");
    expect(answers.filter((a) => a.result !== undefined).map((a) => a.id)).toEqual(bad.map((_, i) => 100 + i));
  });

  test("outside a supervised repository it says so and exits 12, before speaking MCP", () => {
    const run = spawnSync(BIN, ["mcp"], { cwd: join(repo.dir, ".."), input: "", encoding: "utf8" });
    expect([2, 12]).toContain(run.status!);
    expect(run.stdout).toBe("");
  });
});

describe("majordomus serve", () => {
  let server: ChildProcess;
  let served: Started;
  let base = "";
  let port = 0;

  beforeAll(async () => {
    const started = await startServe(repo.dir);
    served = started;
    server = started.child;
    base = started.url;
    port = Number(new URL(base).port);
  });
  afterAll(() => {
    server.kill("SIGTERM");
  });

  /** A request with headers fetch will not let us set (Host). */
  function raw(
    path: string,
    headers: Record<string, string>,
    method = "GET",
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  test("the JSON API answers each route with its schema, and the same account as MCP", async () => {
    for (const kind of ["continuity", "episodes", "handovers", "context"]) {
      const res = await served.fetch(`/api/v1/${kind}`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc.schema).toBe(`majordomus/api-${kind}/v1`);
      const { schema: _, ...rest } = doc;
      valid(kind, rest);
    }
    const continuity = (await (await served.fetch("/api/v1/continuity")).json()) as {
      handover: { next_action: string; labels: string };
    };
    expect(continuity.handover).toMatchObject({ next_action: NEXT, labels: "exact · fresh" });
    expect((await served.fetch("/api/v1/context?budget_lines=5")).status).toBe(400);
    for (const odd of ["1e1", "10.0", "%2010", "0x10", ""])
      expect((await served.fetch(`/api/v1/context?budget_lines=${odd}`)).status).toBe(400);
    expect((await served.fetch("/api/v1/context?budget_lines=10")).status).toBe(200);
    expect((await served.fetch("/api/v1/nothing")).status).toBe(404);
    // A name every object answers to is not a route either.
    expect((await served.fetch("/api/v1/constructor")).status).toBe(404);
    expect((await served.fetch("/api/v1/continuity", { method: "POST" })).status).toBe(405);
  });

  test("MCP over Streamable HTTP with the SDK's client", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${served.token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.length).toBe(7);
      const continuity = JSON.parse(text(await client.callTool({ name: "continuity", arguments: {} })));
      expect(continuity.handover.next_action).toBe(NEXT);
    } finally {
      await client.close();
    }
  });

  test("a foreign Host or Origin is refused (403) on the API, the page and /mcp", async () => {
    for (const path of ["/api/v1/continuity", "/", "/mcp"]) {
      const host = await raw(path, { host: "attacker.example:80" });
      expect(host.status).toBe(403);
      expect(JSON.parse(host.body).error.message).toContain("not this server's own address");
      const origin = await raw(path, { host: `127.0.0.1:${port}`, origin: "http://attacker.example" });
      expect(origin.status).toBe(403);
    }
    expect(
      (
        await raw("/api/v1/continuity", {
          host: `localhost:${port}`,
          origin: `http://localhost:${port}`,
          authorization: `Bearer ${served.token}`,
        })
      ).status,
    ).toBe(200);
  });

  test("without a key nothing of the account is answered: 401 on the API, its index and /mcp, the page's empty shell at /; a wrong key, a cookie for this port or another, a token in a URL the same", async () => {
    const wrong = `${served.token.slice(0, -4)}AAAA`;
    const attempts: Array<[string, Record<string, string>, string?]> = [];
    for (const path of [
      "/",
      "/api/v1/",
      "/api/v1/continuity",
      "/api/v1/handovers",
      "/api/v1/episodes",
      "/api/v1/context",
      "/mcp",
    ]) {
      attempts.push(
        [path, {}],
        [path, { authorization: `Bearer ${wrong}` }],
        [path, { cookie: `majordomus-${port + 1}=${served.token}` }],
        [path, { cookie: `majordomus-${port}=${served.token}` }],
      );
    }
    attempts.push(
      ["/api/v1/continuity?token=" + served.token, {}],
      [`/?token=${served.token}`, {}],
      ["/mcp", {}, "POST"],
    );
    for (const [path, headers, method] of attempts) {
      const answer = await raw(path, { host: `127.0.0.1:${port}`, ...headers }, method);
      const shell = new URL(path, base).pathname === "/" && method === undefined && !headers.authorization;
      expect(`${path} ${JSON.stringify(headers)} ${answer.status}`).toBe(
        `${path} ${JSON.stringify(headers)} ${shell ? 200 : 401}`,
      );
      expect(answer.body).toContain(shell ? "Paste this checkout" : "open the URL");
      expect(answer.headers["set-cookie"]).toBeUndefined();
      for (const secret of [NEXT, "make the greeting configurable", "which file format?", "cc-now", served.token])
        expect(answer.body).not.toContain(secret);
    }
  });

  test("the URL serve printed carries a one-time launch secret in its fragment: traded once for this run's key, which opens the page and the API as a header; no cookie is ever set", async () => {
    const launch = new URL(served.open).hash.replace(/^#launch=/, "");
    expect(new URL(served.open).search).toBe("");
    expect(launch).not.toBe(served.token);
    const trade = () => raw("/api/v1/session", { host: `127.0.0.1:${port}`, "x-majordomus-launch": launch }, "POST");
    const first = await trade();
    expect(first.status).toBe(200);
    expect(first.headers["set-cookie"]).toBeUndefined();
    const { schema, ...doc } = JSON.parse(first.body) as Record<string, unknown>;
    expect(schema).toBe("majordomus/api-session/v1");
    valid("session", doc);
    const key = String(doc.token);
    expect(key).not.toBe(served.token);
    // Once only: the same secret again, from a browser's history or anyone else, opens nothing.
    expect((await trade()).status).toBe(401);
    const page = await raw("/", { host: `127.0.0.1:${port}`, authorization: `Bearer ${key}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain(NEXT);
    expect(
      (await raw("/api/v1/continuity", { host: `127.0.0.1:${port}`, authorization: `Bearer ${key}` })).status,
    ).toBe(200);
    // The key as a cookie is nothing: only a header the page's script sets is read.
    expect(
      (await raw("/api/v1/continuity", { host: `127.0.0.1:${port}`, cookie: `majordomus-${port}=${key}` })).status,
    ).toBe(401);
    const shell = await raw("/", { host: `127.0.0.1:${port}` });
    expect(String(shell.headers["content-security-policy"])).toMatch(
      /script-src 'sha256-[A-Za-z0-9+/=]+'; connect-src 'self'/,
    );
    const index = await served.fetch("/api/v1/");
    expect(index.status).toBe(200);
    const { schema: indexSchema, ...listed } = (await index.json()) as Record<string, unknown>;
    expect(valid("index", { ...listed })).toEqual({
      routes: ["/api/v1/continuity", "/api/v1/episodes", "/api/v1/handovers", "/api/v1/context"],
      mcp: "/mcp",
    });
    expect(indexSchema).toBe("majordomus/api-index/v1");
  });

  test("the token is the person's alone: 0600 in the local half, never an argument of the server's process, never in the ledger or a tracked file", () => {
    const file = repo.path(".ai/local/state/serve.token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(served.token);
    expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8")).not.toContain(served.token);
    expect(readFileSync(`/proc/${server.pid}/environ`, "utf8")).not.toContain(served.token);
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).not.toContain(served.token);
    expect(repo.git("status", "--porcelain", "--ignored=no")).not.toContain("serve.token");
    expect(repo.git("ls-files")).not.toContain("serve.token");
  });

  test("the page states every card, and serves no script and no external asset", async () => {
    const res = await served.fetch("/");
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    for (const id of [
      "checkout",
      "episodes",
      "task",
      "resume",
      "checkpoint",
      "blockers",
      "closed",
      "uptake",
      "recovery",
      "providers",
      "trust",
    ])
      expect(html).toContain(`<section id="${id}">`);
    expect(html).not.toMatch(/<script|src=|href="http/);
    expect(html).toContain('http-equiv="refresh"');
  });

  test("the local half is served, never published: no tracked or generated file holds a local record's text", () => {
    const tracked = repo
      .git("ls-files")
      .split("\n")
      .filter((f) => f !== "");
    for (const f of tracked) expect(readFileSync(repo.path(f), "utf8").includes(NEXT), f).toBe(false);
    // The closed records and the shared handovers beside them (nothing was shared here).
    const sessions = repo.path(".ai/repo/sessions");
    for (const entry of readdirSync(sessions, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()))
      expect(readFileSync(join(entry.parentPath, entry.name), "utf8").includes(NEXT), entry.name).toBe(false);
  });
});

describe("the account as time passes", () => {
  test("a stale handover is history: both labels, its age, its Next Action withheld with the reason", async () => {
    const later = spawnSync(BIN, ["mcp"], {
      cwd: repo.dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, MAJORDOMUS_NOW: new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString() },
      input: [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "continuity", arguments: {} } },
      ]
        .map((m) => JSON.stringify(m))
        .join("\n")
        .concat("\n"),
    });
    const answer = later.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l))
      .find((a) => a.id === 2);
    const doc = JSON.parse(answer.result.content[0].text);
    expect(doc.handover.freshness).toBe("stale");
    expect(doc.handover.labels).toBe("exact · stale");
    expect(doc.handover.next_action).toBeNull();
    expect(doc.handover.next_action_withheld).toContain("withheld");
    expect(doc.handover.age).toMatch(/d/);
  });
});

describe("freshness of the answers, and the address", () => {
  test("an answer is reused for 2 s at most: a handover written meanwhile shows once that has passed", async () => {
    using fresh = captured();
    ok(fresh.mj(["handover", "--no-task"], { input: HANDOVER }));
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: BIN,
        args: ["mcp"],
        cwd: fresh.dir,
        env: { ...process.env } as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const ask = async () =>
        JSON.parse(text(await client.callTool({ name: "continuity", arguments: {} }))).handover.next_action;
      expect(await ask()).toBe(NEXT);
      ok(fresh.mj(["handover", "--no-task"], { input: HANDOVER.replace(NEXT, "Something newer.") }));
      expect(await ask()).toBe(NEXT);
      await Bun.sleep(2_100);
      expect(await ask()).toBe("Something newer.");
    } finally {
      await client.close();
    }
  }, 300_000);

  // A server outlives the instant and the git answers a one-shot command keeps: each answer after the
  // reuse window reads the clock and asks git again, over stdio (mcp) and over HTTP (serve) alike.
  test("each answer after 2 s is dated now and asks git again: a new file, then its commit, show in the checkout and the labels", async () => {
    using fresh = captured();
    ok(fresh.mj(["handover", "--no-task"], { input: HANDOVER }));
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: BIN,
        args: ["mcp"],
        cwd: fresh.dir,
        env: { ...process.env } as Record<string, string>,
        stderr: "pipe",
      }),
    );
    const served = await startServe(fresh.dir);
    try {
      const overMcp = async () => JSON.parse(text(await client.callTool({ name: "continuity", arguments: {} })));
      const overHttp = async () => (await (await served.fetch("/api/v1/continuity")).json()) as Record<string, any>;
      const firstAt: number[] = [];
      for (const ask of [overMcp, overHttp]) {
        const first = await ask();
        expect(first.checkout.working_tree).toBe("clean");
        expect(first.handover.divergence).toBe("exact");
        firstAt.push(Date.parse(first.generated_at));
      }
      writeFileSync(fresh.path("new.ts"), "export const n = 1;\n");
      await Bun.sleep(2_100);
      ok(fresh.mj(["handover", "--no-task"], { input: HANDOVER.replace(NEXT, "Written while both served.") }));
      for (const [i, ask] of [overMcp, overHttp].entries()) {
        const later = await ask();
        expect(later.checkout.working_tree).toBe("dirty");
        // Dated when it was made, not when the server started; the record written before it is not newer than it.
        expect(Date.parse(later.generated_at) - firstAt[i]!).toBeGreaterThanOrEqual(2_000);
        expect(Date.parse(later.handover.created_at)).toBeLessThanOrEqual(Date.parse(later.generated_at));
      }
      fresh.git("add", "new.ts");
      fresh.git("commit", "-q", "-m", "A new module");
      await Bun.sleep(2_100);
      for (const ask of [overMcp, overHttp]) {
        const after = await ask();
        expect(after.checkout.working_tree).toBe("clean");
        expect(after.checkout.head).toBe(fresh.git("rev-parse", "HEAD"));
        expect(after.handover.divergence).toBe("advanced");
      }
    } finally {
      await client.close();
      served.child.kill("SIGTERM");
    }
  }, 300_000);

  test("a port already taken is refused (15) with what to do, and a host that is not this machine's is a usage error (2); never 'a bug'", async () => {
    const taken = await startServe(repo.dir);
    try {
      const port = new URL(taken.url).port;
      const again = spawnSync(BIN, ["serve", "--port", port], { cwd: repo.dir, encoding: "utf8", timeout: 120_000 });
      expect(again.status).toBe(15);
      expect(again.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(again.stderr).toContain("--port 0 to take a free one");
      const foreign = spawnSync(BIN, ["serve", "--host", "192.0.2.1", "--port", "0"], {
        cwd: repo.dir,
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(foreign.status).toBe(2);
      expect(foreign.stderr).toContain("--host 192.0.2.1 is not an address of this machine");
      for (const run of [again, foreign]) expect(run.stderr).not.toContain("bug");
    } finally {
      taken.child.kill("SIGTERM");
    }
  });

  test("a token file others may read, or a symbolic link in its place, is refused (15) and named; removed, serve writes a new one", async () => {
    using fresh = captured();
    const file = fresh.path(".ai/local/state/serve.token");
    writeFileSync(file, `${"x".repeat(43)}\n`, { mode: 0o666 });
    chmodSync(file, 0o666);
    const loose = spawnSync(BIN, ["serve", "--port", "0"], { cwd: fresh.dir, encoding: "utf8", timeout: 120_000 });
    expect(loose.status).toBe(15);
    expect(loose.stderr).toContain("may be read by others (mode 666)");
    rmSync(file);
    symlinkSync(fresh.path(".ai/repo/policy.yaml"), file);
    const linked = spawnSync(BIN, ["serve", "--port", "0"], { cwd: fresh.dir, encoding: "utf8", timeout: 120_000 });
    expect(linked.status).toBe(15);
    expect(linked.stderr).toContain("is a symbolic link");
    rmSync(file);
    const started = await startServe(fresh.dir);
    try {
      expect(started.token).not.toBe("x".repeat(43));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect((await started.fetch("/api/v1/continuity")).status).toBe(200);
    } finally {
      started.child.kill("SIGTERM");
    }
  });

  test("--host takes an IP address (brackets around an IPv6 one are fine) and names a name it cannot bind (2)", async () => {
    const named = spawnSync(BIN, ["serve", "--host", "example.com", "--port", "0"], {
      cwd: repo.dir,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(named.status).toBe(2);
    expect(named.stderr).toContain('--host "example.com" is not an IP address');
    expect(named.stderr).not.toContain("bug");
    const v6 = await startServe(repo.dir, {}, ["--host", "[::1]"]).catch((err: Error) => err);
    if (v6 instanceof Error) {
      // A machine without IPv6 on loopback says so; it is not a bug.
      expect(v6.message).toContain("not an address of this machine");
      return;
    }
    try {
      expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await v6.fetch("/api/v1/continuity")).status).toBe(200);
    } finally {
      v6.child.kill("SIGTERM");
    }
  });

  test("an address other than loopback is served only when --host names it, with a warning; the URL printed is one a browser opens", async () => {
    const started = await startServe(repo.dir, {}, ["--host", "0.0.0.0"]);
    try {
      expect(started.stderr()).toContain("warning: serving on 0.0.0.0, not loopback");
      // Chromium refuses to open http://0.0.0.0:…; the server answers on loopback too.
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await started.fetch("/api/v1/continuity")).status).toBe(200);
    } finally {
      started.child.kill("SIGTERM");
    }
  });
});

// Who else can reach the port: another user of this machine (the suite becomes `nobody` where it
// runs as root), and a caller on the network when --host opens it, sending a loopback Host.
const NOBODY = 65534;
const asNobody =
  process.getuid?.() === 0 &&
  spawnSync("setpriv", ["--version"]).status === 0 &&
  spawnSync("curl", ["--version"]).status === 0;
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

describe("majordomus serve, as anyone but the person", () => {
  test.skipIf(!asNobody)(
    "another local user (nobody) reads neither the token nor, through the port, any of the account: 401 on the page, the API and /mcp (needs root, setpriv and curl)",
    async () => {
      using repo = busy();
      const served = await startServe(repo.dir);
      try {
        const nobody = (args: string[]) =>
          spawnSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...args], {
            encoding: "utf8",
            cwd: "/",
            timeout: 120_000,
          });
        const cat = nobody(["cat", repo.path(".ai/local/state/serve.token")]);
        expect(cat.status).not.toBe(0);
        expect(cat.stdout).toBe("");
        for (const [path, extra] of [
          ["/", []],
          ["/api/v1/continuity", []],
          ["/api/v1/", []],
          [
            "/mcp",
            [
              "-X",
              "POST",
              "-H",
              "content-type: application/json",
              "-H",
              "accept: application/json, text/event-stream",
              "--data",
              '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            ],
          ],
        ] as const) {
          const got = nobody(["curl", "-s", "-o", "-", "-w", "\n%{http_code}", ...extra, `${served.url}${path}`]);
          // At / the page's empty shell (its script asks for the page with a key it does not have).
          expect(got.stdout.trim().split("\n").pop()).toBe(path === "/" ? "200" : "401");
          for (const secret of [NEXT, "make the greeting configurable", "which file format?", "cc-now", served.token])
            expect(got.stdout).not.toContain(secret);
        }
        // The person, the same request with the token: answered.
        expect((await served.fetch("/api/v1/continuity")).status).toBe(200);
      } finally {
        served.child.kill("SIGTERM");
      }
    },
    300_000,
  );

  test.skipIf(lanAddress === undefined)(
    "bound to 0.0.0.0, a caller on the machine's network address sending a loopback Host gets nothing of the account; naming that address with the token, it is answered (needs a non-loopback IPv4 address)",
    async () => {
      using repo = busy();
      const served = await startServe(repo.dir, {}, ["--host", "0.0.0.0"]);
      try {
        const port = Number(new URL(served.url).port);
        for (const path of ["/", "/api/v1/continuity", "/mcp"]) {
          const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
            const req = request(
              {
                host: lanAddress,
                port,
                path,
                method: path === "/mcp" ? "POST" : "GET",
                headers: { host: `127.0.0.1:${port}` },
              },
              (res) => {
                let body = "";
                res.on("data", (d) => (body += d));
                res.on("end", () => resolve({ status: res.statusCode!, body }));
              },
            );
            req.on("error", reject);
            req.end();
          });
          expect(answer.status).toBe(path === "/" ? 200 : 401);
          expect(answer.body).not.toContain(NEXT);
        }
        // The machine's own address, named honestly, with the token: answered.
        const honest = await fetch(`http://${lanAddress}:${port}/api/v1/continuity`, {
          headers: { authorization: `Bearer ${served.token}` },
        });
        expect(honest.status).toBe(200);
        expect(await honest.text()).toContain(NEXT);
      } finally {
        served.child.kill("SIGTERM");
      }
    },
    300_000,
  );
});
