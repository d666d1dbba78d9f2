/**
 * `majordomus serve`: the continuity page, the JSON API and MCP over Streamable HTTP, on one
 * loopback port. Any other address only when --host names it, with a warning.
 */
import { Failure } from "../../lib/failure.ts";
import { workspace } from "../../workspace/workspace.ts";
import { intOption } from "../args.ts";
import { command } from "../define.ts";
import { err } from "../print.ts";

export default command({
  meta: { name: "serve", description: "Serve the continuity page (/), the JSON API (/api/v1/) and MCP (/mcp) on a loopback port, read-only" },
  examples: ["majordomus serve", "majordomus serve --port 7411"],
  args: {
    port: { type: "string", description: "The port (default 7411; 0 picks a free one)" },
    host: { type: "string", description: "The address to bind (default 127.0.0.1; anything else is served with a warning)" },
  },
  longLived: true,
  async run({ args }) {
    const port = intOption("port", args.port) ?? 7411;
    if (port > 65535) throw new Failure("usage", `--port ${port} is not a port`, "give 0 to 65535");
    const host = args.host === undefined ? "127.0.0.1" : String(args.host);
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const [{ Account }, { serve, isLoopback }] = await Promise.all([import("../../serve/account.ts"), import("../../serve/http.ts")]);
    if (!isLoopback(host)) err(`majordomus: warning: serving on ${host}, not loopback: anyone who can reach it reads this checkout's local half (prompts excepted: none are served)`);
    const served = await serve(new Account(ws.position.worktree), { host, port });
    err(`majordomus: serving ${served.url}/ (the page), ${served.url}/api/v1/ (JSON), ${served.url}/mcp (MCP); read-only; Ctrl-C stops`);
    await new Promise<void>((resolve) => {
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
    });
    await served.close();
  },
});
