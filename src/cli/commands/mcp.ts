/**
 * `majordomus mcp`: the read-only continuity server over MCP on stdio (for a client's MCP
 * configuration). Nothing but JSON-RPC on stdout; logging on stderr.
 */
import { workspace } from "../../workspace/workspace.ts";
import { clientProcess } from "../../lib/holder.ts";
import { mark } from "../../lib/trace.ts";
import { command } from "../define.ts";
import { err, out } from "../print.ts";

export default command({
  meta: {
    name: "mcp",
    description: "Serve this checkout's continuity over MCP on stdio, read-only (for a client's MCP configuration)",
  },
  examples: ["majordomus mcp", "claude mcp add majordomus -- majordomus mcp"],
  args: {},
  longLived: true,
  async run() {
    // Fail now, with the reason, when there is no layer here (not at the first tool call).
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const [{ Account }, { mcpServer }, { StdioServerTransport }, { Connection }] = await Promise.all([
      import("../../serve/account.ts"),
      import("../../serve/mcp.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("../../serve/connections.ts"),
    ]);
    mark("mcp: modules loaded (the SDK's server and its schemas are most of it)");
    // Connection episodes, where this checkout consented to them (the server's only writes).
    const connection = await Connection.open(ws.position.worktree);
    // The history tools answer the client that started this server (its parent) for its own sessions only.
    const server = mcpServer(
      new Account(ws.position.worktree),
      { kind: "client", client: clientProcess() },
      connection,
    );
    mark("mcp: tools registered");
    // Served while stdin is open; when the client closes it, the answers still being made are
    // written, and then the process ends by itself (nothing else keeps it alive).
    // Every line is screened first (serve/guard.ts): what JSON-RPC calls invalid is answered here, a line over 10 MiB is answered and skipped.
    const { screened } = await import("../../serve/guard.ts");
    const input = screened(process.stdin, (answer) => out(JSON.stringify(answer)));
    const transport = new StdioServerTransport(input, process.stdout);
    await server.connect(transport);
    mark("mcp: connected");
    if (connection) {
      // Every message is a heartbeat; the end of stdin is a dropped connection; a signal stops the server.
      const receive = transport.onmessage;
      transport.onmessage = (message) => {
        connection.heartbeat();
        receive?.(message);
      };
      // Until the client goes (stdin ends: detached, the episode waits) or the server is stopped (closed: shutdown).
      await new Promise<void>((resolve) => {
        const warn = (e: Error) => err(`majordomus: warning: ${e.message}`);
        input.once("end", () => void connection.dropped().catch(warn).finally(resolve));
        for (const signal of ["SIGINT", "SIGTERM"] as const) {
          process.once(signal, () => {
            void connection
              .shutdown()
              .catch(warn)
              .finally(() => {
                process.stdin.destroy();
                resolve();
              });
          });
        }
        err(`majordomus: MCP on stdio for ${ws.position.worktree} (read-only, with connection episodes)`);
      });
      await server.close();
      return;
    }
    err(`majordomus: MCP on stdio for ${ws.position.worktree} (read-only)`);
  },
});
