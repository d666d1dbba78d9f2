/**
 * `majordomus serve`: the continuity page, the JSON API and MCP over Streamable HTTP, on one
 * loopback port. Any other address only when --host names it, with a warning.
 */
import { Failure } from "../../lib/failure.ts";
import { workspace } from "../../workspace/workspace.ts";
import { intOption } from "../args.ts";
import { command } from "../define.ts";
import { err } from "../print.ts";
import { isIP } from "node:net";
import { relative } from "node:path";

/** --host as an address to bind: an IP address of this machine (brackets around an IPv6 one dropped), or localhost. */
function hostOption(raw: unknown): string {
  if (raw === undefined) return "127.0.0.1";
  const host = String(raw).replace(/^\[(.*)\]$/, "$1");
  if (host === "localhost" || isIP(host) !== 0) return host;
  throw new Failure(
    "usage",
    `--host ${JSON.stringify(String(raw))} is not an IP address`,
    "give an address of this machine, such as 127.0.0.1, ::1 or 0.0.0.0 (leave --host out to serve on 127.0.0.1)",
  );
}

export default command({
  meta: {
    name: "serve",
    description: "Serve the continuity page (/), the JSON API (/api/v1/) and MCP (/mcp) on a loopback port, read-only",
  },
  examples: ["majordomus serve", "majordomus serve --port 7411", "majordomus serve --rotate-token"],
  args: {
    port: { type: "string", description: "The port (default 7411; 0 picks a free one)" },
    "rotate-token": {
      type: "boolean",
      description: "Replace the checkout's token with a new one first (API and MCP clients then need the new one)",
    },
    host: {
      type: "string",
      description:
        "The IP address to bind (default 127.0.0.1; any other is served with a warning, and still needs the token)",
    },
  },
  longLived: true,
  async run({ args }) {
    const port = intOption("port", args.port) ?? 7411;
    if (port > 65535) throw new Failure("usage", `--port ${port} is not a port`, "give 0 to 65535");
    const host = hostOption(args.host);
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const [{ Account }, { serve, isLoopback }, { serveToken, rotateToken, tokenNow }] = await Promise.all([
      import("../../serve/account.ts"),
      import("../../serve/http.ts"),
      import("../../serve/token.ts"),
    ]);
    if (args["rotate-token"]) rotateToken(ws.layer);
    const { path } = await serveToken(ws.layer, ws.position.worktree);
    const shownPath = relative(process.cwd(), path) || path;
    if (!isLoopback(host))
      err(
        `majordomus: warning: serving on ${host}, not loopback: anyone who can reach it can try; ` +
          `only a request with the token is answered, and the token crosses the network in the ` +
          `clear (plain HTTP)`,
      );
    const served = await serve(new Account(ws.position.worktree), { host, port, token: () => tokenNow(ws.layer) });
    err(`majordomus: serving ${served.url}/ (read-only; Ctrl-C stops)`);
    err(
      `  open ${served.launch} in your browser for the page (it works once, for this run; the ` +
        `page then keeps its own key; another browser, or one that lost it, gets in with the token below)`,
    );
    err(
      `  the JSON API (${served.url}/api/v1/) and MCP (${served.url}/mcp) answer ` +
        `\`Authorization: Bearer <token>\`; the token is in ${shownPath} (yours alone, mode 600; ` +
        `\`serve --rotate-token\` makes a new one)`,
    );
    await new Promise<void>((resolve) => {
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
    });
    await served.close();
  },
});
