/**
 * The history tools over MCP: the client's own transcript of its session, read on demand, never stored. The file is
 * the one the start event named, under `<client config>/projects/`, checked on its open descriptor (a link anywhere
 * is refused), indexed once per server. A subagent is refused these tools by the mod.
 */
import { closeSync, readSync } from "node:fs";
import { Failure } from "../lib/failure.ts";
import {
  entryText,
  indexTranscript,
  TAIL_BYTES,
  windowNumber,
  type Entry,
  type TranscriptIndex,
} from "../transcript/claude.ts";
import { redact, redactShapes } from "../lib/redact.ts";
import { openTranscript, transcriptSource, type Caller, type Source } from "./transcript-source.ts";

export type { Caller } from "./transcript-source.ts";
import { printable } from "../lib/printable.ts";

const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
export const READ_MAX = 20;
const PREVIEW_CHARS = 160;
const MESSAGE_CHARS = 20_000;

const indexes = new Map<string, TranscriptIndex>();

type Opened = { source: Source; index: TranscriptIndex; text(entry: Entry): string; close(): void };

async function read(cwd: string, session: string | undefined, caller: Caller): Promise<Opened> {
  const source = await transcriptSource(cwd, session, caller);
  const file = openTranscript(source);
  const pread = (buffer: Buffer, position: number) => readSync(file.fd, buffer, 0, buffer.length, position);
  try {
    const index = indexTranscript(pread, file, indexes.get(source.path));
    indexes.set(source.path, index);
    return { source, index, text: (entry) => entryText(pread, entry), close: () => closeSync(file.fd) };
  } catch (err) {
    closeSync(file.fd);
    throw err;
  }
}

function coverage(index: TranscriptIndex) {
  return index.from === 0
    ? {}
    : {
        read_from_byte: index.from,
        windows_before: index.windowsBefore,
        note:
          `this transcript is over ${TAIL_BYTES / 1048576} MiB: its ` +
          `last ${TAIL_BYTES / 1048576} MiB are read, numbered from there`,
      };
}

const shown = (text: string) => printable(redactShapes(text));
/** What the model is shown: the full redaction, control characters escaped. */
const handed = async (text: string) => printable((await redact(text)).text);
const preview = async (text: string) => {
  const flat = (await handed(text)).replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
};

export async function historyWindows(
  cwd: string,
  args: { session?: string } = {},
  caller: Caller = { kind: "person" },
) {
  const t = await read(cwd, args.session, caller);
  try {
    const current = t.index.windows.at(-1)?.window ?? t.index.windowsBefore;
    return {
      session: t.source.session,
      episode: t.source.episode,
      current,
      previous: current > 0 ? current - 1 : null,
      windows: t.index.windows,
      ...coverage(t.index),
    };
  } finally {
    t.close();
  }
}

export type ListArgs = { session?: string; query?: string; window?: string | number; offset?: number; limit?: number };

export async function historyList(cwd: string, args: ListArgs, caller: Caller = { kind: "person" }) {
  const t = await read(cwd, args.session, caller);
  try {
    const window = windowNumber({ windows: t.index.windows }, args.window);
    const query = args.query?.toLowerCase();
    const inWindow = t.index.entries.filter((m) => window === undefined || m.window === window);
    // The raw text first (cheap), then the redacted text: a secret's value never matches.
    const marks = query?.includes("redacted") === true;
    const matching = query
      ? inWindow.filter((m) => {
          const raw = t.text(m);
          return (marks || raw.toLowerCase().includes(query)) && shown(raw).toLowerCase().includes(query);
        })
      : inWindow;
    const offset = Math.max(0, args.offset ?? 0);
    const limit = Math.min(Math.max(1, args.limit ?? LIST_DEFAULT), LIST_MAX);
    const page = matching.slice(offset, offset + limit);
    return {
      session: t.source.session,
      total: matching.length,
      offset,
      next_offset: offset + page.length < matching.length ? offset + page.length : null,
      items: await Promise.all(
        page.map(async (m) => ({
          seq: m.seq,
          window: m.window,
          role: m.role,
          kind: m.kind,
          at: m.at,
          preview: await preview(t.text(m)),
        })),
      ),
      ...coverage(t.index),
    };
  } finally {
    t.close();
  }
}

export async function historyRead(
  cwd: string,
  args: { session?: string; seq: number; to?: number },
  caller: Caller = { kind: "person" },
) {
  const last = args.to ?? args.seq;
  if (last < args.seq)
    throw new Failure("usage", `to (${last}) is before seq (${args.seq})`, "give a range from seq up to to");
  if (last - args.seq + 1 > READ_MAX)
    throw new Failure(
      "usage",
      `${last - args.seq + 1} messages asked for; at most ${READ_MAX} per read`,
      "read the range in parts",
    );
  const t = await read(cwd, args.session, caller);
  try {
    const messages = t.index.entries.slice(args.seq - 1, last);
    if (messages.length === 0)
      throw new Failure(
        "missing",
        `no message ${args.seq}${last !== args.seq ? `–${last}` : ""} in this session's ` +
          `transcript (it has 1–${t.index.entries.length})`,
        "`history_list` gives the numbers",
      );
    return {
      session: t.source.session,
      messages: await Promise.all(
        messages.map(async (m) => {
          const text = await handed(t.text(m));
          return {
            seq: m.seq,
            window: m.window,
            role: m.role,
            kind: m.kind,
            at: m.at,
            text:
              text.length > MESSAGE_CHARS
                ? `${text.slice(0, MESSAGE_CHARS)}… (${text.length - MESSAGE_CHARS} more characters)`
                : text,
          };
        }),
      ),
    };
  } finally {
    t.close();
  }
}
