/**
 * A mock of the Gemini API on 127.0.0.1, enough for Gemini CLI: the router's JSON utility call
 * (`generateContent` with a JSON response schema) answered with valid JSON, the main turn
 * (`streamGenerateContent?alt=sse`) with a text or a function call the test chooses, history
 * compression answered with a state snapshot; every request kept.
 */
import { serveLoopback, textUnder } from "./loopback.ts";

export type GeminiReceived = { path: string; body: Record<string, unknown> | undefined; text: string };
export type GeminiCall = { name: string; args: Record<string, unknown> };
export type GeminiMockOptions = {
  call?: (request: GeminiReceived, index: number) => GeminiCall | undefined;
  reply?: string;
  /** The prompt size the mock reports (past half the model's window, the client compresses). */
  promptTokens?: (request: GeminiReceived, index: number) => number;
};
export type GeminiMock = { url: string; requests(): GeminiReceived[]; turns(): GeminiReceived[]; stop(): void };

const textOf = (body: unknown) => textUnder(body, new Set(["text", "parts", "contents", "systemInstruction"]));

export function startGeminiMock(options: GeminiMockOptions = {}): GeminiMock {
  const requests: GeminiReceived[] = [];
  let turn = 0;
  const server = serveLoopback(({ url, body }) => {
    const received: GeminiReceived = { path: url.pathname, body, text: textOf(body) };
    requests.push(received);
    const config = (body?.generationConfig ?? {}) as { responseMimeType?: string };
    const json = (doc: unknown) =>
      new Response(JSON.stringify(doc), { headers: { "content-type": "application/json" } });
    const candidate = (parts: unknown[]) => ({
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
    });
    if (url.pathname.endsWith(":generateContent")) {
      // The router's classifier wants JSON shaped by its schema; compression wants a state snapshot.
      if (config.responseMimeType === "application/json")
        return json(
          candidate([{ text: JSON.stringify({ complexity_reasoning: "a short task", complexity_score: 10 }) }]),
        );
      if (received.text.includes("state_snapshot"))
        return json(candidate([{ text: "<state_snapshot>the work so far</state_snapshot>" }]));
      return json(candidate([{ text: options.reply ?? "ok" }]));
    }
    if (url.pathname.endsWith(":streamGenerateContent")) {
      const index = turn++;
      const call = options.call?.(received, index);
      const parts = call ? [{ functionCall: { name: call.name, args: call.args } }] : [{ text: options.reply ?? "ok" }];
      const tokens = options.promptTokens?.(received, index) ?? 10;
      const chunk = {
        candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: tokens, candidatesTokenCount: 1, totalTokenCount: tokens + 1 },
      };
      return new Response(`data: ${JSON.stringify(chunk)}\n\n`, { headers: { "content-type": "text/event-stream" } });
    }
    return json({});
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: () => requests,
    turns: () => requests.filter((r) => r.path.endsWith(":streamGenerateContent")),
    stop: server.stop,
  };
}
