/**
 * Each stdio line is screened before the MCP server sees it: an invalid message gets its JSON-RPC error (the SDK
 * drops it silently), and a line too long is answered and skipped. Memory stays bounded.
 */
import { PassThrough, type Readable } from "node:stream";

export const MAX_LINE_BYTES = 10 * 1024 * 1024;

type Answer = { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } };
const invalid = (id: string | number | null, message: string): Answer => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32600, message: `Invalid Request: ${message}` },
});

export function screenLine(line: string): { forward: true } | { answer: Answer } | { skip: true } {
  if (line.trim() === "") return { skip: true };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return {
      answer: { jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${(err as Error).message}` } },
    };
  }
  if (Array.isArray(value))
    return {
      answer: invalid(
        null,
        value.length === 0 ? "an empty batch" : "batches are not part of MCP (2025-06-18): send one message per line",
      ),
    };
  if (value === null || typeof value !== "object")
    return { answer: invalid(null, `a message is a JSON object, not ${value === null ? "null" : typeof value}`) };
  const m = value as Record<string, unknown>;
  const id = typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
  if (m.jsonrpc !== "2.0") return { answer: invalid(id, 'jsonrpc must be "2.0"') };
  if (typeof m.method === "string") return { forward: true };
  if (m.method !== undefined) return { answer: invalid(id, "method must be a string") };
  if (id !== null && ("result" in m || "error" in m)) return { forward: true };
  return { answer: invalid(id, "a message without a method") };
}

export function screened(input: Readable, answer: (doc: Answer) => void): Readable {
  const out = new PassThrough();
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = false;
  const line = (bytes: Buffer) => {
    const verdict = screenLine(bytes.toString("utf8"));
    if ("forward" in verdict) out.write(Buffer.concat([bytes, Buffer.from("\n")]));
    else if ("answer" in verdict) answer(verdict.answer);
  };
  input.on("data", (chunk: Buffer) => {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      if (skipping) answer(invalid(null, `a line over ${MAX_LINE_BYTES / 1048576} MiB was skipped`));
      else line(parts.length === 0 ? chunk.subarray(from, nl) : Buffer.concat([...parts, chunk.subarray(from, nl)]));
      parts = [];
      held = 0;
      skipping = false;
      from = nl + 1;
    }
    if (from < chunk.length && !skipping) {
      held += chunk.length - from;
      if (held > MAX_LINE_BYTES) {
        skipping = true;
        parts = [];
      } else parts.push(Buffer.from(chunk.subarray(from)));
    }
  });
  input.on("end", () => {
    if (!skipping && held > 0) line(Buffer.concat(parts));
    out.end();
  });
  input.on("error", (err) => out.destroy(err));
  return out;
}
