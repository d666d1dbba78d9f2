/**
 * Claude Code's own transcript (`<config>/projects/<cwd>/<session>.jsonl`), read on demand for the history tools and
 * never stored. Strict, since a guess hands the model a wrong account: an unknown row type or a malformed line (but a
 * last one being written) refuses the read. It shows text blocks and the client's renderings of attachments; never
 * thinking or raw tool payloads. A rewritten row keeps its first sequence number; compaction boundaries split the
 * windows.
 */
import { Failure } from "../lib/failure.ts";

const MESSAGE_TYPES = new Set(["user", "assistant", "attachment", "system"]);
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
const HIDDEN_BLOCKS = new Set([
  "thinking",
  "redacted_thinking",
  "image",
  "document",
  "server_tool_use",
  "web_search_tool_result",
  "tool_reference",
]);

export type Message = {
  seq: number;
  window: number;
  uuid: string;
  role: "user" | "assistant" | "attachment" | "system";
  kind: string;
  at: string;
  text: string;
};

export type Window = {
  window: number;
  from_seq: number;
  to_seq: number;
  messages: number;
  started_at: string;
  trigger?: string;
};

export type Transcript = { messages: Message[]; windows: Window[] };

type Row = Record<string, unknown>;

const refuse = (why: string) =>
  new Failure(
    "contract",
    why,
    "the history tools read only a transcript they understand whole; read it in Claude Code itself (/resume) instead",
  );

function blocksText(content: unknown, line: number | string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw refuse(`line ${line}: a message whose content is neither text nor a list of blocks`);
  const parts: string[] = [];
  for (const block of content as Row[]) {
    const type = typeof block?.type === "string" ? block.type : undefined;
    if (type === "text") parts.push(String(block.text ?? ""));
    else if (type === "tool_use") parts.push(`[tool call: ${String(block.name ?? "?")}]`);
    else if (type === "tool_result")
      parts.push(`[tool result${block.is_error === true ? ", an error" : ""}]${resultText(block.content, line)}`);
    else if (type !== undefined && HIDDEN_BLOCKS.has(type)) parts.push(type.includes("thinking") ? "" : `[${type}]`);
    else
      throw refuse(
        `line ${line}: a content block of a type this reader does not know (${JSON.stringify(type ?? null)})`,
      );
  }
  return parts.filter((p) => p !== "").join("\n");
}

function resultText(content: unknown, line: number | string): string {
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

function render(row: Row, line: number | string): string {
  if (row.type === "attachment") {
    const rendered = row.rendered;
    if (rendered === undefined) return "";
    if (!Array.isArray(rendered)) throw refuse(`line ${line}: an attachment whose rendering is not a list`);
    return rendered
      .map((r) => (typeof (r as Row)?.content === "string" ? String((r as Row).content) : ""))
      .filter((t) => t !== "")
      .join("\n");
  }
  if (row.type === "system") return typeof row.content === "string" ? row.content : "";
  const message = row.message as Row | undefined;
  if (!message || typeof message !== "object")
    throw refuse(`line ${line}: a ${String(row.type)} row without its message`);
  return blocksText(message.content, line);
}

export type Entry = Omit<Message, "text"> & { offset: number; length: number };

/**
 * What is known of a transcript so far, extended as the client appends; a replaced or shortened file is indexed anew.
 * Past the cap only the last TAIL_BYTES are read, after counting the compactions before them.
 */
export type TranscriptIndex = {
  dev: number;
  ino: number;
  from: number;
  to: number;
  entries: Entry[];
  windows: Window[];
  windowsBefore: number;
  lines: number;
  seen: Set<string>;
  window: number;
};

export const TAIL_BYTES = 32 * 1024 * 1024;
export const ROW_MAX_BYTES = 8 * 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;
const BOUNDARY = Buffer.from('"subtype":"compact_boundary"');

function rowMessage(
  raw: string,
  line: number | string,
  index: Pick<TranscriptIndex, "seen">,
): { row: Row; text: string } | undefined {
  if (raw.trim() === "") return undefined;
  let row: Row;
  try {
    row = JSON.parse(raw) as Row;
  } catch {
    throw refuse(`line ${line} is not valid JSON`);
  }
  if (row === null || typeof row !== "object" || typeof row.type !== "string")
    throw refuse(`line ${line}: a row without a type`);
  if (BOOKKEEPING_TYPES.has(row.type)) return undefined;
  if (!MESSAGE_TYPES.has(row.type))
    throw refuse(`line ${line}: a row of a type this reader does not know (${JSON.stringify(row.type)})`);
  if (row.isSidechain === true) return undefined;
  if (typeof row.uuid !== "string") throw refuse(`line ${line}: a ${row.type} row without its uuid`);
  if (index.seen.has(row.uuid)) return undefined;
  return { row, text: render(row, line) };
}

function place(index: TranscriptIndex, row: Row, text: string, at: { offset: number; length: number }): void {
  index.seen.add(row.uuid as string);
  const stamp = typeof row.timestamp === "string" ? row.timestamp : "";
  const boundary = row.type === "system" && row.subtype === "compact_boundary";
  const seq = index.entries.length + 1;
  if (boundary && index.entries.length > 0) index.window += 1;
  if (boundary || index.windows.length === 0) {
    const trigger = boundary ? ((row.compactMetadata as Row | undefined)?.trigger as string | undefined) : undefined;
    index.windows.push({
      window: index.window,
      from_seq: seq,
      to_seq: seq - 1,
      messages: 0,
      started_at: stamp,
      ...(trigger ? { trigger } : {}),
    });
  }
  index.entries.push({
    seq,
    window: index.window,
    uuid: row.uuid as string,
    role: row.type as Message["role"],
    kind: kindOf(row, text),
    at: stamp,
    ...at,
  });
  const w = index.windows[index.windows.length - 1]!;
  w.to_seq = seq;
  w.messages += 1;
}

function placeOversized(index: TranscriptIndex, offset: number, length: number): void {
  const seq = index.entries.length + 1;
  if (index.windows.length === 0)
    index.windows.push({ window: index.window, from_seq: seq, to_seq: seq - 1, messages: 0, started_at: "" });
  index.entries.push({
    seq,
    window: index.window,
    uuid: `oversized-${offset}`,
    role: "system",
    kind: "unread",
    at: "",
    offset,
    length,
  });
  const w = index.windows[index.windows.length - 1]!;
  w.to_seq = seq;
  w.messages += 1;
}

type Reader = (buffer: Buffer, position: number) => number;

function boundariesBefore(read: Reader, end: number): number {
  let count = 0;
  const buffer = Buffer.allocUnsafe(CHUNK + BOUNDARY.length);
  for (let at = 0; at < end;) {
    const n = read(buffer.subarray(0, Math.min(buffer.length, end - at)), at);
    if (n <= 0) break;
    const view = buffer.subarray(0, n);
    for (let i = view.indexOf(BOUNDARY); i !== -1; i = view.indexOf(BOUNDARY, i + 1)) count++;
    at += n >= BOUNDARY.length && at + n < end ? n - BOUNDARY.length + 1 : n;
  }
  return count;
}

/** Index what the index has not seen yet; memory is one chunk and the longest row up to ROW_MAX_BYTES. */
export function indexTranscript(
  read: Reader,
  stats: { dev: number; ino: number; size: number },
  previous?: TranscriptIndex,
): TranscriptIndex {
  const reuse =
    previous && previous.dev === stats.dev && previous.ino === stats.ino && previous.to <= stats.size
      ? previous
      : undefined;
  const index: TranscriptIndex = reuse ?? {
    dev: stats.dev,
    ino: stats.ino,
    from: 0,
    to: 0,
    entries: [],
    windows: [],
    windowsBefore: 0,
    lines: 0,
    seen: new Set(),
    window: 0,
  };
  if (!reuse && stats.size > TAIL_BYTES) {
    const probe = Buffer.allocUnsafe(ROW_MAX_BYTES);
    let from = stats.size - TAIL_BYTES;
    const n = read(probe, from - 1);
    const newline = probe.subarray(0, n).indexOf(10);
    from = newline === -1 ? stats.size : from + newline;
    index.from = index.to = from;
    index.windowsBefore = index.window = boundariesBefore(read, from);
  }
  const buffer = Buffer.allocUnsafe(CHUNK);
  let carry: Buffer[] = [];
  let carried = 0;
  let rowStart = index.to;
  let skipping = false;
  let at = index.to;
  while (at < stats.size) {
    const n = read(buffer.subarray(0, Math.min(CHUNK, stats.size - at)), at);
    if (n <= 0) break;
    let cut = 0;
    for (let nl = buffer.indexOf(10, 0); nl !== -1 && nl < n; nl = buffer.indexOf(10, nl + 1)) {
      const length = carried + (nl - cut);
      index.lines += 1;
      const line = index.from === 0 ? index.lines : `${index.lines} after byte ${index.from}`;
      if (skipping || length > ROW_MAX_BYTES) placeOversized(index, rowStart, length);
      else {
        const raw =
          carried === 0
            ? buffer.toString("utf8", cut, nl)
            : Buffer.concat([...carry, buffer.subarray(cut, nl)]).toString("utf8");
        const got = rowMessage(raw, line, index);
        if (got) place(index, got.row, got.text, { offset: rowStart, length });
      }
      carry = [];
      carried = 0;
      skipping = false;
      cut = nl + 1;
      rowStart = at + cut;
    }
    if (cut < n) {
      if (!skipping && carried + (n - cut) <= ROW_MAX_BYTES) {
        carry.push(Buffer.from(buffer.subarray(cut, n)));
        carried += n - cut;
      } else {
        skipping = true;
        carry = [];
        carried += n - cut;
      }
    }
    at += n;
  }
  // A last row without its newline may still be being written: left for the next read.
  index.to = rowStart;
  return index;
}

export function entryText(read: Reader, entry: Entry): string {
  if (entry.kind === "unread")
    return `[a row of ${entry.length} bytes, longer than the ${ROW_MAX_BYTES} this reader reads]`;
  const buffer = Buffer.allocUnsafe(entry.length);
  const n = read(buffer, entry.offset);
  const got = rowMessage(buffer.toString("utf8", 0, n), `at byte ${entry.offset}`, { seen: new Set() });
  if (!got) throw refuse(`the row at byte ${entry.offset} changed since it was indexed`);
  return got.text;
}

export function parseTranscript(text: string): Transcript {
  const bytes = Buffer.from(text, "utf8");
  const read: Reader = (buffer, position) =>
    bytes.copy(buffer, 0, position, Math.min(bytes.length, position + buffer.length));
  const index = indexTranscript(read, { dev: 0, ino: 0, size: bytes.length });
  return {
    messages: index.entries.map((e) => ({
      seq: e.seq,
      window: e.window,
      uuid: e.uuid,
      role: e.role,
      kind: e.kind,
      at: e.at,
      text: entryText(read, e),
    })),
    windows: index.windows,
  };
}

export function windowNumber(t: Pick<Transcript, "windows">, which: string | number | undefined): number | undefined {
  if (which === undefined) return undefined;
  const current = t.windows.at(-1)?.window ?? 0;
  const n =
    which === "@current"
      ? current
      : which === "@previous"
        ? current - 1
        : typeof which === "number"
          ? which
          : /^\d+$/.test(which)
            ? Number(which)
            : Number.NaN;
  if (!t.windows.some((w) => w.window === n)) {
    throw new Failure(
      "missing",
      `no window ${String(which)} in this session's transcript (it has ${t.windows.map((w) => w.window).join(", ") || "none"})`,
      "`history_windows` lists them; `@previous` is the one before the current",
    );
  }
  return n;
}
