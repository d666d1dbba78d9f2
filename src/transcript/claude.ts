/**
 * Claude Code's own persisted transcript of a session (`<config>/projects/<cwd>/<session>.jsonl`),
 * read on demand for the history tools and never stored: nothing read here is written anywhere.
 *
 * The reader is strict, because a guess would hand the model a wrong account: a row type it does not
 * know, a message it cannot place, or a malformed line (other than a last line still being written)
 * refuses the whole read. What it shows of a message is its text blocks and the renderings the
 * client recorded for an attachment; never thinking, never a raw payload (a tool's input, a tool
 * result's structured record, an attachment's data).
 *
 * Every message gets a sequence number in the order it was first written (a row written again, as
 * the client does for a kept message, keeps its first number). Windows are split at the client's
 * compaction boundaries: window 0 runs to the first, window k from the k-th on.
 */
import { Failure } from "../lib/failure.ts";

/** Row types that carry the conversation. */
const MESSAGE_TYPES = new Set(["user", "assistant", "attachment", "system"]);
/** Row types the client writes for its own bookkeeping (requests, costs, modes, the queue): known, and not conversation. */
const BOOKKEEPING_TYPES = new Set([
  "queue-operation",
  "atis-latch",
  "last-prompt",
  "api-request-blob",
  "api-request",
  "api-request-shape",
  "cost-state",
  "mode",
  "tools-used",
  "summary",
  "file-history-snapshot",
  "custom-title",
  "ai-title",
  "permission-mode",
  "pr-link",
  "tag",
]);
/** Content blocks shown as text, and blocks shown only by name. */
const HIDDEN_BLOCKS = new Set(["thinking", "redacted_thinking", "image", "document", "server_tool_use", "web_search_tool_result", "tool_reference"]);

export type Message = {
  seq: number;
  window: number;
  uuid: string;
  role: "user" | "assistant" | "attachment" | "system";
  /** What kind of row it is beyond its role: prompt, tool_result, compact_summary, compact_boundary, meta, or the attachment's type. */
  kind: string;
  at: string;
  text: string;
};

export type Window = { window: number; from_seq: number; to_seq: number; messages: number; started_at: string; trigger?: string };

export type Transcript = { messages: Message[]; windows: Window[] };

type Row = Record<string, unknown>;

const refuse = (why: string) => new Failure("contract", why, "the history tools read only a transcript they understand whole; read it in Claude Code itself (/resume) instead");

function blocksText(content: unknown, line: number): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw refuse(`line ${line}: a message whose content is neither text nor a list of blocks`);
  const parts: string[] = [];
  for (const block of content as Row[]) {
    const type = typeof block?.type === "string" ? block.type : undefined;
    if (type === "text") parts.push(String(block.text ?? ""));
    else if (type === "tool_use") parts.push(`[tool call: ${String(block.name ?? "?")}]`);
    else if (type === "tool_result") parts.push(`[tool result${block.is_error === true ? ", an error" : ""}]${resultText(block.content, line)}`);
    else if (type !== undefined && HIDDEN_BLOCKS.has(type)) parts.push(type.includes("thinking") ? "" : `[${type}]`);
    else throw refuse(`line ${line}: a content block of a type this reader does not know (${JSON.stringify(type ?? null)})`);
  }
  return parts.filter((p) => p !== "").join("\n");
}

function resultText(content: unknown, line: number): string {
  if (content === undefined || content === null) return "";
  const text = blocksText(content, line);
  return text === "" ? "" : `\n${text}`;
}

function kindOf(row: Row, text: string): string {
  if (row.type === "attachment") return String((row.attachment as Row | undefined)?.type ?? "attachment");
  if (row.type === "system") return String(row.subtype ?? "system");
  if (row.isCompactSummary === true) return "compact_summary";
  if (row.isMeta === true) return "meta";
  const content = (row.message as Row | undefined)?.content;
  if (Array.isArray(content) && content.some((b) => (b as Row)?.type === "tool_result")) return "tool_result";
  return row.type === "user" ? (text.startsWith("<") ? "command" : "prompt") : "answer";
}

function render(row: Row, line: number): string {
  if (row.type === "attachment") {
    // Only what the client rendered for the model; the attachment's own data stays out.
    const rendered = row.rendered;
    if (rendered === undefined) return "";
    if (!Array.isArray(rendered)) throw refuse(`line ${line}: an attachment whose rendering is not a list`);
    return rendered.map((r) => (typeof (r as Row)?.content === "string" ? String((r as Row).content) : "")).filter((t) => t !== "").join("\n");
  }
  if (row.type === "system") return typeof row.content === "string" ? row.content : "";
  const message = row.message as Row | undefined;
  if (!message || typeof message !== "object") throw refuse(`line ${line}: a ${String(row.type)} row without its message`);
  return blocksText(message.content, line);
}

/** Parse the whole file; `text` is the file as read at one instant. */
export function parseTranscript(text: string): Transcript {
  const lines = text.split("\n");
  // A last line without its newline may still be being written: it is left out, not refused.
  const complete = text.endsWith("\n") ? lines.slice(0, -1) : lines;
  const partialLast = !text.endsWith("\n") && lines.length > 0;
  const messages: Message[] = [];
  const windows: Window[] = [];
  const seen = new Set<string>();
  let window = 0;
  complete.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    let row: Row;
    try {
      row = JSON.parse(raw) as Row;
    } catch {
      if (partialLast && index === complete.length - 1) return;
      throw refuse(`line ${line} is not valid JSON`);
    }
    if (row === null || typeof row !== "object" || typeof row.type !== "string") throw refuse(`line ${line}: a row without a type`);
    if (BOOKKEEPING_TYPES.has(row.type)) return;
    if (!MESSAGE_TYPES.has(row.type)) throw refuse(`line ${line}: a row of a type this reader does not know (${JSON.stringify(row.type)})`);
    // A subagent's rows are its own conversation, not this session's.
    if (row.isSidechain === true) return;
    if (typeof row.uuid !== "string") throw refuse(`line ${line}: a ${row.type} row without its uuid`);
    if (seen.has(row.uuid)) return;
    seen.add(row.uuid);
    const at = typeof row.timestamp === "string" ? row.timestamp : "";
    const boundary = row.type === "system" && row.subtype === "compact_boundary";
    // A boundary opens the next window (the first row opens window 0); the boundary is its first message.
    if (boundary && messages.length > 0) window += 1;
    if (boundary || windows.length === 0) {
      const trigger = boundary ? ((row.compactMetadata as Row | undefined)?.trigger as string | undefined) : undefined;
      windows.push({ window, from_seq: messages.length + 1, to_seq: messages.length, messages: 0, started_at: at, ...(trigger ? { trigger } : {}) });
    }
    const text = render(row, line);
    messages.push({ seq: messages.length + 1, window, uuid: row.uuid, role: row.type as Message["role"], kind: kindOf(row, text), at, text });
    const w = windows[windows.length - 1]!;
    w.to_seq = messages.length;
    w.messages += 1;
  });
  return { messages, windows };
}

/** `@previous`, `@current` or a window number, against the windows there are; a refusal names the range. */
export function windowNumber(t: Transcript, which: string | number | undefined): number | undefined {
  if (which === undefined) return undefined;
  const current = t.windows.at(-1)?.window ?? 0;
  const n = which === "@current" ? current : which === "@previous" ? current - 1 : typeof which === "number" ? which : /^\d+$/.test(which) ? Number(which) : Number.NaN;
  if (!t.windows.some((w) => w.window === n)) {
    throw new Failure("missing", `no window ${String(which)} in this session's transcript (it has ${t.windows.map((w) => w.window).join(", ") || "none"})`, "`history_windows` lists them; `@previous` is the one before the current");
  }
  return n;
}
