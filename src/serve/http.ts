/**
 * `majordomus serve`: one loopback server for the page at `/`, the API under `/api/v1/` and MCP at `/mcp`, read-only.
 * A Host or Origin not its own is refused (DNS rebinding), and every request needs a Bearer key: the checkout's
 * token, or the run's session key the page traded for the URL's one-time secret. No cookies: a browser sends them to
 * every port of a host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Account } from "./account.ts";
import { Failure } from "../lib/failure.ts";
import { randomBytes } from "node:crypto";
import { networkInterfaces } from "node:os";
import { isToken } from "./token.ts";
import { LAUNCH_HEADER, SHELL_HTML, SHELL_SCRIPT_HASH } from "./shell.ts";

export const API_SCHEMA = (name: string) => `majordomus/api-${name}/v1`;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/** Its loopback names and --host at its port; bound to every address, each of this machine's own too. */
function allowedHosts(bound: string, port: number): Set<string> {
  const names = new Set(["127.0.0.1", "localhost", "[::1]"]);
  const own =
    bound === "0.0.0.0" || bound === "::"
      ? Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address))
      : isLoopback(bound)
        ? []
        : [bound];
  for (const address of own) names.add(address.includes(":") ? `[${address}]` : address);
  return new Set([...names].map((n) => `${n}:${port}`));
}

const NO_SCRIPT = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
const SHELL_POLICY =
  `default-src 'none'; script-src ${SHELL_SCRIPT_HASH}; connect-src 'self'; style-src ` +
  `'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

function send(res: ServerResponse, status: number, type: string, body: string, policy = NO_SCRIPT): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": policy,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, doc: unknown) =>
  send(res, status, "application/json; charset=utf-8", `${JSON.stringify(doc)}\n`);
const refuse = (res: ServerResponse, status: number, message: string) =>
  json(res, status, { schema: API_SCHEMA("error"), error: { status, message } });

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) throw new Error("request body over 1 MB");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text);
}

function carried(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
}

const UNAUTHORIZED =
  "this server answers only the person who started it: open the URL `majordomus serve` " +
  "printed (or paste the token into the page), or send `Authorization: Bearer <token>` with the token in " +
  ".ai/local/state/serve.token";

const API: Record<string, (a: Account, q: URLSearchParams) => Promise<unknown>> = {
  continuity: (a) => a.continuity(),
  episodes: (a) => a.episodes(),
  handovers: (a) => a.handovers(),
  context: async (a, q) => {
    const raw = q.get("budget_lines");
    // Digits only: `1e1` or ` 10` is not a count a person wrote.
    const budget = raw === null ? undefined : /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 10 || budget > 2000))
      throw Object.assign(new Error("budget_lines must be an integer from 10 to 2000"), { status: 400 });
    return a.context(budget);
  },
};

export type Served = { server: Server; url: string; launch: string; close(): Promise<void> };
/** `token`: the token on file now, asked at every request (a rotation anywhere revokes the old one here). */
export type ServeOptions = { host: string; port: number; token: () => string | undefined };

const LISTEN_FAILURES: Record<string, (o: { host: string; port: number }) => Failure> = {
  EADDRINUSE: (o) =>
    new Failure(
      "refused",
      `port ${o.port} on ${o.host} is in use (another majordomus serve, or another server)`,
      "give another with --port, or --port 0 to take a free one",
    ),
  EACCES: (o) =>
    new Failure(
      "refused",
      `port ${o.port} on ${o.host} needs privileges this process does not have`,
      "give a free port above 1023 with --port (e.g. the default, 7411), or --port 0 to take a free one",
    ),
  EADDRNOTAVAIL: (o) =>
    new Failure(
      "usage",
      `--host ${o.host} is not an address of this machine`,
      "leave --host out to serve on 127.0.0.1",
    ),
};

function listenFailure(err: unknown, options: { host: string; port: number }): unknown {
  const make = LISTEN_FAILURES[String((err as { code?: unknown })?.code)];
  return make ? make(options) : err;
}

/** Why a request's Host or Origin is not this server's own address (DNS rebinding), or undefined. */
function foreignAddress(req: IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  const host = req.headers.host ?? "";
  if (!allowed.has(host))
    return (
      `Host ${JSON.stringify(host)} is not this server's own address; requests are answered ` +
      `only for ${[...allowed].join(", ")}`
    );
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null" && !allowed.has(origin.replace(/^https?:\/\//, "")))
    return `Origin ${JSON.stringify(origin)} is not this server's own address`;
  return undefined;
}

const ROUTES = () => Object.keys(API).map((k) => `/api/v1/${k}`);

/** What a request that carried a key is answered: MCP, the page, the API's index and its routes. */
async function answerWithKey(account: Account, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (url.pathname === "/mcp") return await mcp(account, req, res);
  if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405, "read-only: only GET is answered here");
  if (url.pathname === "/") return send(res, 200, "text/html; charset=utf-8", await account.page());
  if (url.pathname === "/api/v1/" || url.pathname === "/api/v1")
    return json(res, 200, { schema: API_SCHEMA("index"), routes: ROUTES(), mcp: "/mcp" });
  const route = /^\/api\/v1\/([a-z]+)$/.exec(url.pathname)?.[1];
  const answer = route && Object.hasOwn(API, route) ? API[route] : undefined;
  if (!answer) return refuse(res, 404, `no such page: ${url.pathname} (the API is ${ROUTES().join(", ")})`);
  return json(res, 200, { schema: API_SCHEMA(route!), ...((await answer(account, url.searchParams)) as object) });
}

/** This run's one-time launch secret and the session keys traded for it (or for the token): in memory only. */
type Keys = { launch: string | undefined; sessions: string[]; token: string | undefined };

/** A page key, traded for the one-time launch secret or for the token (a second browser's way in: pasted by hand). */
function trade(keys: Keys, req: IncomingMessage, res: ServerResponse): void {
  const offered = req.headers[LAUNCH_HEADER];
  const launched = keys.launch !== undefined && typeof offered === "string" && isToken(offered, keys.launch);
  const withToken = keys.token !== undefined && isToken(carried(req), keys.token);
  if (!launched && !withToken)
    return refuse(
      res,
      401,
      "neither this run's launch secret (it works once) nor the checkout's token: paste the token from " +
        ".ai/local/state/serve.token into the page, or open the URL the running serve printed",
    );
  if (launched) keys.launch = undefined;
  const key = randomBytes(32).toString("base64url");
  keys.sessions.push(key);
  return json(res, 200, { schema: API_SCHEMA("session"), token: key });
}

/** The address a browser opens: a server bound to every address is reached on loopback. */
const browsable = (host: string) =>
  host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;

export async function serve(account: Account, options: ServeOptions): Promise<Served> {
  let allowed = new Set<string>();
  const keys: Keys = { launch: randomBytes(32).toString("base64url"), sessions: [], token: options.token() };
  const shown = keys.launch;
  /** The token on file now; a new one (rotated) revokes the launch secret and every key traded before it. */
  const current = () => {
    const token = options.token();
    if (token !== keys.token) Object.assign(keys, { token, launch: undefined, sessions: [] });
    return token;
  };
  const authorized = (given: string | undefined) => {
    const token = current();
    return (token !== undefined && isToken(given, token)) || keys.sessions.some((key) => isToken(given, key));
  };
  const server = createServer(async (req, res) => {
    try {
      const foreign = foreignAddress(req, allowed);
      if (foreign) return refuse(res, 403, foreign);
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? ""}`);
      current();
      if (url.pathname === "/api/v1/session" && req.method === "POST") return trade(keys, req, res);
      if (!authorized(carried(req))) {
        // The shell holds nothing of the account: its script fetches the page with its key.
        if (url.pathname === "/" && (req.method === "GET" || req.method === "HEAD") && !req.headers.authorization)
          return send(res, 200, "text/html; charset=utf-8", SHELL_HTML, SHELL_POLICY);
        return refuse(res, 401, UNAUTHORIZED);
      }
      return await answerWithKey(account, req, res, url);
    } catch (err) {
      const status = (err as { status?: number }).status ?? 500;
      if (!res.headersSent) refuse(res, status, (err as Error).message);
      else res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(listenFailure(err, options)));
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  allowed = allowedHosts(options.host, port);
  const url = `http://${browsable(options.host)}:${port}`;
  return {
    server,
    url,
    launch: `${url}/#launch=${shown}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function mcp(account: Account, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "POST")
    return refuse(res, 405, "MCP over Streamable HTTP here is stateless: POST each JSON-RPC message to /mcp");
  let parsed: unknown;
  try {
    parsed = await body(req);
  } catch (err) {
    return json(res, 400, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: `parse error: ${(err as Error).message}` },
    });
  }
  const [{ StreamableHTTPServerTransport }, { mcpServer }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("./mcp.ts"),
  ]);
  const server = mcpServer(account, { kind: "person" });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
}
