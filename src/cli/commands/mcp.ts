/** `majordomus mcp`: the read-only continuity server on stdio. Nothing but JSON-RPC on stdout. */
import { workspace } from "../../workspace/workspace.ts";
import { clientProcess } from "../../lib/holder.ts";
import { mark } from "../../lib/trace.ts";
import { command } from "../define.ts";
import { err, out } from "../print.ts";
import type { Connection } from "../../serve/connections.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export default command({
  meta: {
    name: "mcp",
    description: "Serve this checkout's continuity over MCP on stdio, read-only (for a client's MCP configuration)",
  },
  examples: ["majordomus mcp", "claude mcp add majordomus -- majordomus mcp"],
  args: {},
  longLived: true,
  async run() {
    // No layer here: fail now, not at the first tool call.
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const [{ Account }, { mcpServer }, { StdioServerTransport }, { Connection }] = await Promise.all([
      import("../../serve/account.ts"),
      import("../../serve/mcp.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("../../serve/connections.ts"),
    ]);
    mark("mcp: modules loaded (the SDK's server and its schemas are most of it)");
    const connection = await Connection.open(ws.position.worktree);
    const server = mcpServer(
      new Account(ws.position.worktree),
      { kind: "client", client: clientProcess() },
      connection,
    );
    mark("mcp: tools registered");
    // Each line is screened first (serve/guard.ts); when stdin closes, answers in flight are written and the process
    // ends by itself.
    const { screened } = await import("../../serve/guard.ts");
    const input = screened(process.stdin, (answer) => out(JSON.stringify(answer)));
    const transport = new StdioServerTransport(input, process.stdout);
    await server.connect(transport);
    mark("mcp: connected");
    if (connection) {
      await servedWithEpisodes(connection, transport, input, ws.position.worktree);
      await server.close();
      return;
    }
    err(`majordomus: MCP on stdio for ${ws.position.worktree} (read-only)`);
  },
});

/** Every message is a heartbeat; the end of stdin detaches (the episode waits), a signal closes it (shutdown). */
async function servedWithEpisodes(
  connection: Connection,
  transport: { onmessage?: (message: JSONRPCMessage) => void },
  input: NodeJS.ReadableStream,
  worktree: string,
): Promise<void> {
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    connection.heartbeat();
    receive?.(message);
  };
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
    err(`majordomus: MCP on stdio for ${worktree} (read-only, with connection episodes)`);
  });
}
