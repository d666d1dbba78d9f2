/** `majordomus mcp` over stdio, as a client calls it: initialize, then one tools/call per tool. */
import { expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { BIN } from "./env.ts";

/** The MCP server's answers to these tools, each as the text the model would read. */
export function mcpAnswers(cwd: string, tools: string[]): string[] {
  const messages = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...tools.map((name, i) => ({ jsonrpc: "2.0", id: i + 2, method: "tools/call", params: { name, arguments: {} } })),
  ];
  const run = spawnSync(BIN, ["mcp"], {
    cwd,
    encoding: "utf8",
    timeout: 20_000,
    input: `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`,
  });
  const answers = run.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((a) => a.id >= 2);
  expect(answers.length).toBe(tools.length);
  return answers.map((a) => JSON.stringify(a.result));
}
