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
  /** What kind of row it is beyond its role: prompt, tool_result, compact_summary, compact_boundary, meta, or the attachment's type. */
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
    // Only what the client rendered for the model; the attachment's own data stays out.
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

/** A message as the index keeps it: where its row is in the file, not its text (read again when shown). */
export type Entry = Omit<Message, "text"> & { offset: number; length: number };

/**
 * What is known of a transcript file so far. The history tools' server keeps one per file and
 * extends it as the client appends (only the new bytes are read); a file replaced or cut short is
 * indexed anew. A file larger than the cap is read from `from`: its last TAIL_BYTES, after counting
 * the compactions before them (so the windows keep their numbers).
 */
export type TranscriptIndex = {
  dev: number;
  ino: number;
  /** Where reading began (0 unless the file was over the cap when first indexed). */
  from: number;
  /** The first byte not yet indexed (the start of a last line still being written, if any). */
  to: number;
  entries: Entry[];
  windows: Window[];
  /** Windows wholly before `from`: counted, not read. */
  windowsBefore: number;
  /** Lines read so far (counted from the file's start when `from` is 0). */
  lines: number;
  seen: Set<string>;
  window: number;
};

/** The most of a transcript the tools read: its end. */
export const TAIL_BYTES = 32 * 1024 * 1024;
/** A row longer than this is shown as a placeholder, never read into memory. */
export const ROW_MAX_BYTES = 8 * 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;
/** A compaction boundary as the client writes it: unescaped, so never inside a string value. */
const BOUNDARY = Buffer.from('"subtype":"compact_boundary"');

/** The message a complete row is, or undefined when it is not one of the session's (bookkeeping, a subagent's, a repeat). */
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
  // A subagent's rows are its own conversation, not this session's.
  if (row.isSidechain === true) return undefined;
  if (typeof row.uuid !== "string") throw refuse(`line ${line}: a ${row.type} row without its uuid`);
  if (index.seen.has(row.uuid)) return undefined;
  return { row, text: render(row, line) };
}

/** Add one row's message to the index (the window it opens, if a boundary). */
function place(index: TranscriptIndex, row: Row, text: string, at: { offset: number; length: number }): void {
  index.seen.add(row.uuid as string);
  const stamp = typeof row.timestamp === "string" ? row.timestamp : "";
  const boundary = row.type === "system" && row.subtype === "compact_boundary";
  const seq = index.entries.length + 1;
  // A boundary opens the next window (the first row read opens the first); the boundary is its first message.
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

/** A row too long to read: a placeholder in its place, so the numbers after it hold. */
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

/** How many compaction boundaries the bytes [0, end) hold: a native search, in chunks, nothing parsed. */
function boundariesBefore(read: Reader, end: number): number {
  let count = 0;
  const buffer = Buffer.allocUnsafe(CHUNK + BOUNDARY.length);
  for (let at = 0; at < end;) {
    const n = read(buffer.subarray(0, Math.min(buffer.length, end - at)), at);
    if (n <= 0) break;
    const view = buffer.subarray(0, n);
    for (let i = view.indexOf(BOUNDARY); i !== -1; i = view.indexOf(BOUNDARY, i + 1)) count++;
    // Overlap the next chunk by the pattern's length less one, so a boundary across two chunks is counted once.
    at += n >= BOUNDARY.length && at + n < end ? n - BOUNDARY.length + 1 : n;
  }
  return count;
}

/**
 * Index (or extend the index of) the transcript open on `read`, whose size is `size`. Reads only
 * what the index has not seen, in chunks; memory is one chunk and the longest row up to
 * ROW_MAX_BYTES, whatever the file's size.
 */
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
    // Begin at the first whole row of the last TAIL_BYTES.
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
      // The rest of this chunk begins a row that goes on in the next: keep it, unless it is already too long to read.
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
  // A last row without its newline may still be being written: it is left for the next read.
  index.to = rowStart;
  return index;
}

/** The text of one indexed message, read again from the file. */
export function entryText(read: Reader, entry: Entry): string {
  if (entry.kind === "unread")
    return `[a row of ${entry.length} bytes, longer than the ${ROW_MAX_BYTES} this reader reads]`;
  const buffer = Buffer.allocUnsafe(entry.length);
  const n = read(buffer, entry.offset);
  const got = rowMessage(buffer.toString("utf8", 0, n), `at byte ${entry.offset}`, { seen: new Set() });
  if (!got) throw refuse(`the row at byte ${entry.offset} changed since it was indexed`);
  return got.text;
}

/** Parse a whole transcript held in memory (a test's, a fixture's): the same reader over a buffer. */
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

/** `@previous`, `@current` or a window number, against the windows there are; a refusal names the range. */
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
