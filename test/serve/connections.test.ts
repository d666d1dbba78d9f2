// Connection episodes over MCP, for a client without hooks, through the SDK's own client and the
// compiled binary: off unless the checkout consents; attach, heartbeat, a drop and a reattach within
// the grace (one episode), the grace expired (an injected clock), detach, and a stopped server;
// exactly one closed record each.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN } from "../support/env.ts";
import { layered, ledger } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

function consenting(): Repo {
  const repo = layered();
  const policy = repo.path(".ai/repo/policy.yaml");
  writeFileSync(
    policy,
    readFileSync(policy, "utf8").replace("connection_episodes: false", "connection_episodes: true"),
  );
  writeFileSync(repo.path(".ai/local/state/consent.yaml"), "mcp:\n  connection_episodes: true\n", { mode: 0o600 });
  return repo;
}

async function connect(repo: Repo, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp"],
    cwd: repo.dir,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

const answer = (r: unknown) => JSON.parse((r as { content: Array<{ text: string }> }).content[0]!.text);
const records = (repo: Repo) =>
  readdirSync(repo.path(".ai/repo/sessions"))
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"));
const openFiles = (repo: Repo) =>
  readdirSync(repo.path(".ai/local/state/sessions-open")).filter((f) => f.endsWith(".yaml"));

/** Wait until the server process has gone (stdin closed: it records the drop and exits). */
async function gone(transport: StdioClientTransport): Promise<void> {
  const pid = transport.pid;
  await transport.close();
  for (let i = 0; i < 200 && pid !== null; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await Bun.sleep(10);
  }
}

describe("connection episodes", () => {
  test("off unless the policy asks and the local consent file grants: no writing tool is offered", async () => {
    using repo = layered();
    const { client, transport } = await connect(repo);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("session_attach");
    await gone(transport);
    // The tracked policy alone is not consent.
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace("connection_episodes: false", "connection_episodes: true"),
    );
    const asked = await connect(repo);
    expect((await asked.client.listTools()).tools.map((t) => t.name)).not.toContain("session_attach");
    await gone(asked.transport);
    // A consent file git tracks (force-added by whoever wrote the repository) grants nothing either.
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "mcp:\n  connection_episodes: true\n", { mode: 0o600 });
    repo.git("add", "-f", ".ai/local/state/consent.yaml");
    const tracked = await connect(repo);
    expect((await tracked.client.listTools()).tools.map((t) => t.name)).not.toContain("session_attach");
    await gone(tracked.transport);
    // The same file, the person's own (untracked): granted.
    repo.git("rm", "-q", "--cached", ".ai/local/state/consent.yaml");
    const own = await connect(repo);
    expect((await own.client.listTools()).tools.map((t) => t.name)).toContain("session_attach");
    await gone(own.transport);
  });

  test("attach, a dropped connection, a reattach within the grace, detach: one episode, one closed record", async () => {
    using repo = consenting();
    const first = await connect(repo);
    const attached = answer(
      await first.client.callTool({ name: "session_attach", arguments: { client: "cursor", external_id: "cur-1" } }),
    );
    expect(attached.resumed).toBe(false);
    expect(attached.session_id).toMatch(/^s-/);
    expect(readFileSync(repo.path(".ai/local/state/sessions-open/cur-1.yaml"), "utf8")).toContain(
      "opened_by: connection",
    );
    await first.client.callTool({ name: "continuity", arguments: {} });
    await gone(first.transport);
    const dropped = ledger(repo).find((e) => e.event === "session.detached");
    expect(dropped).toMatchObject({ session_id: attached.session_id, reason: "the connection dropped" });
    expect(openFiles(repo)).toEqual(["cur-1.yaml"]);
    expect(records(repo)).toEqual([]);

    const second = await connect(repo);
    expect(
      answer(
        await second.client.callTool({ name: "session_attach", arguments: { client: "cursor", external_id: "cur-1" } }),
      ),
    ).toEqual({ session_id: attached.session_id, resumed: true });
    const detached = answer(await second.client.callTool({ name: "session_detach", arguments: {} }));
    expect(detached.session_id).toBe(attached.session_id);
    await gone(second.transport);
    const closed = records(repo);
    expect(closed.length).toBe(1);
    expect(closed[0]).toContain("outcome: closed");
    expect(closed[0]).toContain("provider: cursor");
    expect(openFiles(repo)).toEqual([]);
  }, 300_000);

  test("no reattach within the grace: the next server closes it as interrupted (an injected clock)", async () => {
    using repo = consenting();
    const first = await connect(repo);
    answer(
      await first.client.callTool({ name: "session_attach", arguments: { client: "cursor", external_id: "cur-2" } }),
    );
    await gone(first.transport);
    const later = await connect(repo, { MAJORDOMUS_NOW: new Date(Date.now() + 16 * 60_000).toISOString() });
    await later.client.listTools();
    await gone(later.transport);
    const closed = records(repo);
    expect(closed.length).toBe(1);
    expect(closed[0]).toContain("outcome: interrupted");
    expect(closed[0]).toContain("no client attached again within 15 minutes");
    expect(openFiles(repo)).toEqual([]);
  }, 300_000);

  test("within the grace nothing is closed; stopping the server closes the attached episode with reason shutdown", async () => {
    using repo = consenting();
    const first = await connect(repo);
    answer(
      await first.client.callTool({ name: "session_attach", arguments: { client: "cursor", external_id: "cur-3" } }),
    );
    await gone(first.transport);
    const soon = await connect(repo, { MAJORDOMUS_NOW: new Date(Date.now() + 10 * 60_000).toISOString() });
    await soon.client.listTools();
    await gone(soon.transport);
    expect(records(repo)).toEqual([]);

    const serving = await connect(repo);
    answer(
      await serving.client.callTool({ name: "session_attach", arguments: { client: "cursor", external_id: "cur-4" } }),
    );
    process.kill(serving.transport.pid!, "SIGTERM");
    for (let i = 0; i < 300 && records(repo).length === 0; i++) await Bun.sleep(10);
    await serving.transport.close();
    const closed = records(repo);
    expect(closed.length).toBe(1);
    expect(closed[0]).toContain("provider_session: cur-4");
    expect(closed[0]).toContain("shutdown");
    expect(openFiles(repo)).toEqual(["cur-3.yaml"]);
  }, 300_000);
});
