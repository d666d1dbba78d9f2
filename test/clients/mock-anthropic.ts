/**
 * A mock of the Anthropic Messages API on 127.0.0.1, for running the real Claude Code client
 * headless. It answers every model call with a short text, streams it as server-sent events the
 * way the API does, reports the input tokens the test asks for, answers a compaction request with a
 * summary, and keeps every request it received so a test can read what reached the model.
 */
import { serveLoopback, textUnder } from "./loopback.ts";

export type Received = {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  text: string;
  at: number;
};
/** A tool call the mock makes instead of answering in text (the client runs it and asks again with its result). */
export type ToolCall = { name: string; input: Record<string, unknown> };
/** An API error the mock answers with instead (a 400 `prompt is too long`, say). */
export type MockError = { status: number; type: string; message: string; headers?: Record<string, string> };
export type MockOptions = {
  inputTokens?: (request: Received, index: number) => number;
  reply?: (request: Received) => string;
  tool?: (request: Received, index: number) => ToolCall | undefined;
  error?: (request: Received, index: number) => MockError | undefined;
};

/** Whether a request is the client's summarizer asking for a summary of the conversation. */
export function asksForSummary(request: Pick<Received, "body">): boolean {
  // Claude Code 2.1.332's compaction prompt says exactly this (seen in its summarizer requests).
  return /create a detailed summary of the conversation/i.test(lastUserText(request.body));
}

export type Mock = { url: string; requests: Received[]; stop(): void; messages(): Received[] };

/** Every piece of text in a request (system prompt, messages, tool results), joined. */
const textOf = (body: unknown) => textUnder(body, new Set(["text", "content", "system", "messages"]));

function lastUserText(body: Record<string, unknown> | undefined): string {
  const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === "user");
  return last ? textOf({ content: last.content }) : "";
}

function sse(model: string, text: string, inputTokens: number, tool?: ToolCall): string {
  const block: Array<[string, unknown]> = tool
    ? [
        [
          "content_block_start",
          {
            type: "content_block_start",
            index: 0,
            content_block: {
              type: "tool_use",
              id: `toolu_${Math.random().toString(16).slice(2)}`,
              name: tool.name,
              input: {},
            },
          },
        ],
        [
          "content_block_delta",
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.input) },
          },
        ],
      ]
    : [
        ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
        ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
      ];
  const events: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: `msg_${Math.random().toString(16).slice(2)}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      },
    ],
    ...block,
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: Math.max(1, Math.ceil(text.length / 4)) },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

export function startMock(options: MockOptions = {}): Mock {
  const requests: Received[] = [];
  let modelCalls = 0;
  const server = serveLoopback(({ req, url, raw, body }) => {
    const received: Received = { method: req.method, path: url.pathname, body, text: textOf(body), at: Date.now() };
    requests.push(received);
    if (req.method === "POST" && url.pathname === "/v1/messages") {
      const index = modelCalls++;
      const failure = options.error?.(received, index);
      if (failure)
        return Response.json(
          { type: "error", error: { type: failure.type, message: failure.message } },
          { status: failure.status, headers: failure.headers ?? {} },
        );
      const summary = asksForSummary(received);
      const text = summary
        ? "<analysis>The conversation was short.</analysis>\n<summary>The person asked for ok; the assistant said ok.</summary>"
        : (options.reply?.(received) ?? "ok");
      const inputTokens = options.inputTokens?.(received, index) ?? Math.ceil(raw.length / 4);
      const model = String(body?.model ?? "claude-opus-5-5");
      const tool = summary ? undefined : options.tool?.(received, index);
      if (body?.stream)
        return new Response(sse(model, text, inputTokens, tool), { headers: { "content-type": "text/event-stream" } });
      return Response.json({
        id: "msg_mock",
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      });
    }
    if (url.pathname === "/v1/messages/count_tokens") return Response.json({ input_tokens: Math.ceil(raw.length / 4) });
    if (url.pathname === "/v1/models")
      return Response.json({
        data: [{ type: "model", id: "claude-opus-5-5", display_name: "Mock", created_at: "2026-01-01T00:00:00Z" }],
        has_more: false,
        first_id: "claude-opus-5-5",
        last_id: "claude-opus-5-5",
      });
    return Response.json(
      { type: "error", error: { type: "not_found_error", message: `mock has no ${req.method} ${url.pathname}` } },
      { status: 404 },
    );
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    stop: server.stop,
    messages: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/messages"),
  };
}
