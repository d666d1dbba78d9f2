/**
 * `npm run bench:serve`: the read side's costs. `continuity` over HTTP, warm (p50 and p99 of 500
 * sequential requests; target p50 under 5 ms); a cold `majordomus mcp` from spawn to its first tool
 * answer over stdio, against the no-op binary's whole run (paired; target under 3x); the server's
 * memory after idling (BENCH_IDLE_S, default 60 s); 200 concurrent API requests (errors, p99).
 * Prints; never asserts.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, PROJECT } from "../support/env.ts";
import { startServe } from "../support/serve.ts";
import { freshlyWritten, median } from "./measure.ts";
import { emptyRepo, withCapture, withLedgerLines, withRecords } from "./fixtures.ts";

const ROOT = mkdtempSync(join(tmpdir(), "majordomus-bench-serve-"));
process.env.TMPDIR = ROOT;
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));
const NOOP = join(PROJECT, "dist", "noop");
if (!existsSync(NOOP)) throw new Error("no dist/noop: run `bun run build.ts --noop` first");
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const repo = await withRecords(withLedgerLines(withCapture(emptyRepo()), 10_000), 1_000);
const out: string[] = [
  "## The read side (a repository with 10,000 ledger lines, 1,000 handovers and 1,000 checkpoints)",
  "",
];

// The server.
const { child: server, url: base, token } = await startServe(repo);
const timeOne = async (path: string) => {
  const t = performance.now();
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return { ms: performance.now() - t, ok: res.status === 200 };
};
for (let i = 0; i < 50; i++) await timeOne("/api/v1/continuity");
const warm: number[] = [];
for (let i = 0; i < 500; i++) warm.push((await timeOne("/api/v1/continuity")).ms);
out.push(
  `${pct(warm, 50) < 5 ? "met   " : "MISSED"} continuity over HTTP, warm: p50 ${pct(warm, 50).toFixed(2)} ms, p99 ${pct(warm, 99).toFixed(2)} ms (target p50 < 5 ms; answers are reused for 2 s)`,
);
const page: number[] = [];
for (let i = 0; i < 100; i++) page.push((await timeOne("/")).ms);
out.push(`       the page, warm: p50 ${pct(page, 50).toFixed(2)} ms, p99 ${pct(page, 99).toFixed(2)} ms`);

const burst = await Promise.all(
  Array.from({ length: 200 }, () => timeOne("/api/v1/continuity").catch(() => ({ ms: Number.NaN, ok: false }))),
);
const errors = burst.filter((b) => !b.ok).length;
out.push(
  `${errors === 0 ? "met   " : "MISSED"} 200 concurrent API requests: ${errors} error(s), p50 ${pct(
    burst.map((b) => b.ms),
    50,
  ).toFixed(1)} ms, p99 ${pct(
    burst.map((b) => b.ms),
    99,
  ).toFixed(1)} ms`,
);

const rss = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
const busy = rss();
await Bun.sleep(IDLE_S * 1000);
out.push(
  `       the server's memory: ${busy.toFixed(1)} MiB after the requests, ${rss().toFixed(1)} MiB after idling ${IDLE_S} s`,
);
server.kill("SIGTERM");

// A cold `majordomus mcp`: spawn, initialize, call continuity; until that answer arrives.
const INIT = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "continuity", arguments: {} } })}\n`;
function coldMcp(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(BIN, ["mcp"], { cwd: repo, stdio: ["pipe", "pipe", "ignore"] });
    let seen = "";
    child.stdout!.on("data", (d: Buffer) => {
      seen += d.toString();
      if (seen.includes('"id":2')) {
        resolve(performance.now() - t);
        child.stdin!.end();
      }
    });
    child.once("error", reject);
    child.stdin!.write(INIT);
  });
}
freshlyWritten(BIN, NOOP);
const noopRun = () => {
  const t = performance.now();
  spawnSync(NOOP, [], { stdio: "ignore" });
  return performance.now() - t;
};
const ratios: number[] = [];
const colds: number[] = [];
for (let i = 0; i < 25; i++) {
  const n = noopRun();
  const c = await coldMcp();
  if (i >= 3) {
    colds.push(c);
    ratios.push(c / n);
  }
}
out.push(
  `${median(ratios) < 3 ? "met   " : "MISSED"} a cold majordomus mcp, spawn to its first continuity answer: ${median(colds).toFixed(1)} ms, ${median(ratios).toFixed(2)}× the no-op binary's whole run (paired; target < 3×)`,
);
// The history tools over a 420 MB transcript (a long session's): the server's peak memory and each call's time.
{
  const { openSync, writeSync, closeSync, mkdirSync } = await import("node:fs");
  const session = "bench-long-session";
  const config = join(ROOT, "claude-config");
  const folder = join(config, "projects", "-bench");
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${session}.jsonl`);
  const fd = openSync(path, "w");
  const row = (i: number, size: number) =>
    `${JSON.stringify({ type: i % 2 ? "assistant" : "user", uuid: `m-${i}`, timestamp: "2026-12-01T10:00:00.000Z", message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i} ${"lorem ipsum dolor sit amet ".repeat(size / 27)}` }] } })}\n`;
  let written = 0;
  for (let i = 0; written < 420 * 1024 * 1024; i++) {
    const line =
      i % 5000 === 4999
        ? `${JSON.stringify({ type: "system", subtype: "compact_boundary", uuid: `b-${i}`, timestamp: "2026-12-01T10:00:00.000Z", content: "Conversation compacted", compactMetadata: { trigger: "auto" } })}\n`
        : row(i, 8 * 1024);
    writeSync(fd, line);
    written += line.length;
  }
  closeSync(fd);
  spawnSync(join(repo, ".claude", "hooks", "majordomus-session-start"), [], {
    cwd: repo,
    input: JSON.stringify({ session_id: session, transcript_path: path, source: "startup" }),
    env: { ...process.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` },
  });
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp"],
    cwd: repo,
    env: { ...(process.env as Record<string, string>), CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_SESSION_ID: session },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const calls: Array<[string, Record<string, unknown>]> = [
    ["history_windows", {}],
    ["history_list", { window: "@current" }],
    ["history_read", { seq: 10 }],
    ["history_list", { query: "message 99" }],
    ["history_windows", {}],
  ];
  const times: string[] = [];
  for (const [name, args] of calls) {
    const t = performance.now();
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean };
    times.push(`${name} ${(performance.now() - t).toFixed(0)} ms${r.isError ? " (refused)" : ""}`);
  }
  const peak =
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
  await client.close();
  rmSync(path, { force: true });
  const slowest = Math.max(...times.map((t) => Number(/ (\d+) ms/.exec(t)![1])));
  out.push(
    `${peak < 100 && slowest < 1000 ? "met   " : "MISSED"} history tools over a ${(written / 1048576).toFixed(0)} MiB transcript: peak ${peak.toFixed(1)} MiB (target < 100), each call: ${times.join(", ")} (target well under 1 s)`,
  );
}
console.log(out.join("\n"));
