/**
 * A mock of the OpenAI Responses API on 127.0.0.1, enough for Codex CLI: `POST /v1/responses`
 * answered with server-sent events (a text, or a function call the test chooses), every request
 * kept. Written for these tests from the events Codex needs: response.created,
 * response.output_item.added / .done, response.output_text.delta, response.completed (with usage).
 */
import { serveLoopback, textUnder } from "./loopback.ts";

export type Received = {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
  text: string;
};
export type Call = { name: string; arguments: Record<string, unknown> };
export type OpenAIMockOptions = {
  /** A function call to answer this request with (the client runs it and asks again), or undefined for text. */
  call?: (request: Received, index: number) => Call | undefined;
  reply?: string;
  totalTokens?: (request: Received, index: number) => number;
};
export type OpenAIMock = { url: string; requests(): Received[]; stop(): void };

/** Every text a request carries (instructions and input items), in order. */
const textOf = (body: unknown) => textUnder(body, new Set(["text", "content", "input", "instructions", "output"]));

const event = (name: string, data: Record<string, unknown>) =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;

export function startOpenAIMock(options: OpenAIMockOptions = {}): OpenAIMock {
  const requests: Received[] = [];
  const server = serveLoopback(({ req, url, body }) => {
    const received: Received = {
      path: url.pathname,
      headers: Object.fromEntries(req.headers.entries()),
      body,
      text: textOf(body),
    };
    requests.push(received);
    if (url.pathname !== "/v1/responses")
      return new Response("{}", { status: 404, headers: { "content-type": "application/json" } });
    const index = requests.filter((r) => r.path === "/v1/responses").length - 1;
    const id = `resp_${index}`;
    const call = options.call?.(received, index);
    const item = call
      ? {
          type: "function_call",
          id: `fc_${index}`,
          call_id: `call_${index}`,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
          status: "completed",
        }
      : {
          type: "message",
          id: `msg_${index}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: options.reply ?? "ok", annotations: [] }],
        };
    const total = options.totalTokens?.(received, index) ?? 100;
    const sse = [
      event("response.created", { response: { id, object: "response", status: "in_progress", output: [] } }),
      event("response.output_item.added", {
        output_index: 0,
        item: call ? item : { ...item, status: "in_progress", content: [] },
      }),
      ...(call
        ? []
        : [
            event("response.output_text.delta", {
              output_index: 0,
              content_index: 0,
              item_id: item.id,
              delta: options.reply ?? "ok",
            }),
          ]),
      event("response.output_item.done", { output_index: 0, item }),
      event("response.completed", {
        response: {
          id,
          object: "response",
          status: "completed",
          output: [item],
          usage: { input_tokens: total - 1, output_tokens: 1, total_tokens: total },
        },
      }),
    ].join("");
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests: () => requests.filter((r) => r.path === "/v1/responses"),
    stop: server.stop,
  };
}
