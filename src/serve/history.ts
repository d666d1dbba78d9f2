/**
 * The history tools over MCP: the client's own persisted transcript of the current main session,
 * read on demand, never stored (see transcript/claude.ts).
 *
 * Which file: the one the client's start event named for the current session, as its episode
 * recorded it. The current session is the one the call names (the majordomus mod in Claude Code
 * fills it in from the client, because a resumed session takes an id the server's environment never
 * saw), else the one this server was started for (`CLAUDE_CODE_SESSION_ID`, which Claude Code passes
 * to its MCP servers). Either must have an open episode in this checkout. Nothing is guessed, and the recorded path is checked before it is opened: the episode record
 * lives in a checkout anyone could have committed to, so the path must be
 * `<client config>/projects/…/<that session>.jsonl`, a plain file, not a link. A subagent is
 * refused these tools by the majordomus mod in Claude Code (the server cannot tell the two apart).
 */
import { lstatSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { Failure } from "../lib/failure.ts";
import { workspace } from "../workspace/workspace.ts";
import { attributedEpisode } from "../session/attribution.ts";
import { parseTranscript, windowNumber, type Message, type Transcript } from "../transcript/claude.ts";
import { redact, redactShapes } from "../lib/redact.ts";
import { printable } from "../lib/printable.ts";

/** The client's variable that names its session in an MCP server's environment. */
const SESSION_ENV = "CLAUDE_CODE_SESSION_ID";
const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
export const READ_MAX = 20;
const PREVIEW_CHARS = 160;
const MESSAGE_CHARS = 20_000;

export type Source = { session: string; episode: string; path: string };

function clientProjects(): string {
  return join(process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), "projects") + sep;
}

/** Where this session's transcript is, or why the tools refuse. */
export async function transcriptSource(cwd: string, named?: string): Promise<Source> {
  const session = named || process.env[SESSION_ENV];
  if (!session) throw new Failure("missing", `no ${SESSION_ENV} in this server's environment: the history tools serve the Claude Code session that started \`majordomus mcp\``, "call them from that Claude Code session");
  const ws = await workspace(cwd, undefined, { readOnly: true });
  const episode = await attributedEpisode(ws.layer, ws.position, session);
  if (!episode) throw new Failure("missing", `no open episode here belongs to Claude Code session ${session} (it ended, or a /clear started another)`, "the history tools read only the current session's transcript");
  const path = episode.transcript_path;
  if (!path) throw new Failure("missing", `the start event of session ${session} named no transcript`, "nothing is guessed: without the client's path the history tools refuse");
  const projects = clientProjects();
  if (!isAbsolute(path) || resolve(path) !== path || !path.startsWith(projects) || basename(path) !== `${session}.jsonl`) {
    throw new Failure("refused", `the recorded transcript path ${JSON.stringify(path)} is not ${projects}…/${session}.jsonl`, "the history tools open only the client's own transcript of this session");
  }
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Failure("missing", `the transcript ${path} is not there`, "the client writes it from the first prompt; nothing is guessed in its place");
  if (!stat.isFile()) throw new Failure("refused", `the transcript ${path} is not a plain file (a link, or a folder)`, "the history tools never follow a link");
  return { session, episode: episode.session_id, path };
}

async function read(cwd: string, session?: string): Promise<{ source: Source; transcript: Transcript }> {
  const source = await transcriptSource(cwd, session);
  return { source, transcript: parseTranscript(readFileSync(source.path, "utf8")) };
}

/** What a search looks through: the shapes (synchronous, over every message). */
const shown = (text: string) => printable(redactShapes(text));
/** What the model is shown of a message: the whole engine prompts and records get (the shapes, then the maintained rule set), control characters as `\uXXXX`. */
const handed = async (text: string) => printable((await redact(text)).text);
const preview = async (m: Message) => {
  const flat = (await handed(m.text)).replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
};

export async function historyWindows(cwd: string, args: { session?: string } = {}) {
  const { source, transcript } = await read(cwd, args.session);
  const current = transcript.windows.at(-1)?.window ?? 0;
  return { session: source.session, episode: source.episode, current, previous: current > 0 ? current - 1 : null, windows: transcript.windows };
}

export type ListArgs = { session?: string; query?: string; window?: string | number; offset?: number; limit?: number };

export async function historyList(cwd: string, args: ListArgs) {
  const { source, transcript } = await read(cwd, args.session);
  const window = windowNumber(transcript, args.window);
  const query = args.query?.toLowerCase();
  const matching = transcript.messages.filter((m) => (window === undefined || m.window === window) && (!query || shown(m.text).toLowerCase().includes(query)));
  const offset = Math.max(0, args.offset ?? 0);
  const limit = Math.min(Math.max(1, args.limit ?? LIST_DEFAULT), LIST_MAX);
  const page = matching.slice(offset, offset + limit);
  return {
    session: source.session,
    total: matching.length,
    offset,
    next_offset: offset + page.length < matching.length ? offset + page.length : null,
    items: await Promise.all(page.map(async (m) => ({ seq: m.seq, window: m.window, role: m.role, kind: m.kind, at: m.at, preview: await preview(m) }))),
  };
}

export async function historyRead(cwd: string, args: { session?: string; seq: number; to?: number }) {
  const { source, transcript } = await read(cwd, args.session);
  const last = args.to ?? args.seq;
  if (last < args.seq) throw new Failure("usage", `to (${last}) is before seq (${args.seq})`, "give a range from seq up to to");
  if (last - args.seq + 1 > READ_MAX) throw new Failure("usage", `${last - args.seq + 1} messages asked for; at most ${READ_MAX} per read`, "read the range in parts");
  const messages = transcript.messages.filter((m) => m.seq >= args.seq && m.seq <= last);
  if (messages.length === 0) throw new Failure("missing", `no message ${args.seq}${last !== args.seq ? `–${last}` : ""} in this session's transcript (it has 1–${transcript.messages.length})`, "`history_list` gives the numbers");
  return {
    session: source.session,
    messages: await Promise.all(messages.map(async (m) => {
      const text = await handed(m.text);
      return { seq: m.seq, window: m.window, role: m.role, kind: m.kind, at: m.at, text: text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}… (${text.length - MESSAGE_CHARS} more characters)` : text };
    })),
  };
}
