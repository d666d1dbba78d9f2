/**
 * What the three model-API mocks share: a server on 127.0.0.1 (a free port) that reads each
 * request's JSON body, and the text a request carries under a client's own keys.
 */

/** Every string under `keys` in a request body, depth first, joined by newlines: what a test searches. */
export function textUnder(body: unknown, keys: ReadonlySet<string>): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (keys.has(k)) walk(x);
  };
  walk(body);
  return out.join("\n");
}

export type Incoming = { req: Request; url: URL; raw: string; body: Record<string, unknown> | undefined };

/** Serve `answer` on 127.0.0.1 until `stop()`; a body that is not JSON comes as undefined (its raw text beside it). */
export function serveLoopback(answer: (incoming: Incoming) => Response | Promise<Response>): {
  port: number;
  stop(): void;
} {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const raw = req.method === "POST" ? await req.text() : "";
      let body: Record<string, unknown> | undefined;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      } catch {
        body = undefined;
      }
      return answer({ req, url: new URL(req.url), raw, body });
    },
  });
  return { port: server.port!, stop: () => server.stop(true) };
}
