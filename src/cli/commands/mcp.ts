/**
 * `majordomus mcp`: the read-only continuity server over MCP on stdio (for a client's MCP
 * configuration). Nothing but JSON-RPC on stdout; logging on stderr.
 */
import { workspace } from "../../workspace/workspace.ts";
import { command } from "../define.ts";
import { err } from "../print.ts";

export default command({
  meta: { name: "mcp", description: "Serve this checkout's continuity over MCP on stdio, read-only (for a client's MCP configuration)" },
  examples: ["majordomus mcp", "claude mcp add majordomus -- majordomus mcp"],
  args: {},
  async run() {
    // Fail now, with the reason, when there is no layer here (not at the first tool call).
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const [{ Account }, { mcpServer }, { StdioServerTransport }] = await Promise.all([import("../../serve/account.ts"), import("../../serve/mcp.ts"), import("@modelcontextprotocol/sdk/server/stdio.js")]);
    const server = mcpServer(new Account(ws.position.worktree));
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.on("end", () => resolve());
    });
    await server.connect(transport);
    err(`majordomus: MCP on stdio for ${ws.position.worktree} (read-only)`);
    await closed;
    await server.close();
  },
});
