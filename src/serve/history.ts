/**
 * The history tools over MCP: the client's own transcript of its session, read on demand, never stored. The file is
 * the one the start event named, under `<client config>/projects/`, checked on its open descriptor (a link anywhere
 * is refused), indexed once per server. A subagent is refused these tools by the mod.
 */
import { closeSync, readlinkSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { Failure, isFailure } from "../lib/failure.ts";
import { openRegular } from "../lib/safe-read.ts";
import { workspace } from "../workspace/workspace.ts";
import { attributedEpisode } from "../session/attribution.ts";
import type { OpenEpisode } from "../session/store.ts";
import {
  entryText,
  indexTranscript,
  TAIL_BYTES,
  windowNumber,
  type Entry,
  type TranscriptIndex,
} from "../transcript/claude.ts";
import { redact, redactShapes } from "../lib/redact.ts";
import { printable } from "../lib/printable.ts";
import { env, clientEnv } from "../lib/env.ts";

const SESSION_ENV = "CLAUDE_CODE_SESSION_ID";
const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
export const READ_MAX = 20;
const PREVIEW_CHARS = 160;
const MESSAGE_CHARS = 20_000;

/**
 * `client`: a stdio server, served the session it was started for or one its own client's hooks opened or resumed (a
 * `/resume` gets an id the server never saw), never another client's. `person`: the HTTP server, token in hand: any
 * open session of this checkout, named.
 */
export type Caller = { kind: "client"; client: string | undefined } | { kind: "person" };

export type Source = { session: string; episode: string; path: string };

function clientProjects(): string {
  return join(env("CLAUDE_CONFIG_DIR") || join(homedir(), ".claude"), "projects") + sep;
}

const notOwn = (path: string, projects: string, session: string) =>
  new Failure(
    "refused",
    `the recorded transcript path ${JSON.stringify(path)} is not ${projects}…/${session}.jsonl`,
    "the history tools open only the client's own transcript of this session",
  );

function noSession(caller: Caller): Failure {
  return caller.kind === "client"
    ? new Failure(
        "missing",
        `no ${SESSION_ENV} in this server's environment: the history tools serve the Claude Code ` +
          `session that started \`majordomus mcp\``,
        "call them from that Claude Code session",
      )
    : new Failure(
        "usage",
        "name the session: over HTTP the history tools serve the open session you name",
        "`/api/v1/episodes` lists them (provider_session)",
      );
}

/** Only the client whose hooks opened the episode: the session variable is any process's to set. */
function refuseOtherClient(caller: Caller, session: string, launched: string | undefined, episode: OpenEpisode): void {
  if (caller.kind !== "client" || (session === launched && episode.client_processes === undefined)) return;
  const mine = caller.client;
  if (mine !== undefined && (episode.client_processes ?? "").split(" ").includes(mine)) return;
  throw new Failure(
    "refused",
    `session ${session} is not this client's: its episode was opened by another client ` +
      `process than the one that started this server`,
    "the history tools serve only the session of the client that started them",
  );
}

export async function transcriptSource(cwd: string, named: string | undefined, caller: Caller): Promise<Source> {
  const launched = caller.kind === "client" ? clientEnv(SESSION_ENV) : undefined;
  const session = named || launched;
  if (!session) throw noSession(caller);
  const ws = await workspace(cwd, undefined, { readOnly: true });
  const episode = await attributedEpisode(ws.layer, ws.position, session);
  if (!episode)
    throw new Failure(
      "missing",
      `no open episode here belongs to Claude Code session ${session} (it ended, or a /clear started another)`,
      "the history tools read only the current session's transcript",
    );
  refuseOtherClient(caller, session, launched, episode);
  const path = episode.transcript_path;
  if (!path)
    throw new Failure(
      "missing",
      `the start event of session ${session} named no transcript`,
      "nothing is guessed: without the client's path the history tools refuse",
    );
  const projects = clientProjects();
  if (
    !isAbsolute(path) ||
    resolve(path) !== path ||
    !path.startsWith(projects) ||
    basename(path) !== `${session}.jsonl`
  )
    throw notOwn(path, projects, session);
  return { session, episode: episode.session_id, path };
}

/**
 * The transcript opened as the client's own file: O_NOFOLLOW, every folder above checked on the descriptor after the
 * open (nothing can be swapped in between), a regular file inside the client's transcript folder.
 */
function openTranscript(source: Source): { fd: number; size: number; dev: number; ino: number } {
  let opened: ReturnType<typeof openRegular>;
  try {
    opened = openRegular(source.path);
  } catch (err) {
    if (isFailure(err))
      throw new Failure(
        "refused",
        `the transcript ${source.path} is not a plain file (a link, a folder or a device)`,
        "the history tools never follow a link",
      );
    throw err;
  }
  if (!opened)
    throw new Failure(
      "missing",
      `the transcript ${source.path} is not there`,
      "the client writes it from the first prompt; nothing is guessed in its place",
    );
  const { fd, stats } = opened;
  try {
    const projects = realProjects();
    const opened = openedPath(fd);
    const inside =
      opened !== undefined
        ? opened.startsWith(projects) && basename(opened) === basename(source.path)
        : sameFile(realpathSync(source.path), stats) && realpathSync(source.path).startsWith(projects);
    if (!inside)
      throw new Failure(
        "refused",
        `the transcript ${source.path} resolves outside ${projects} (a folder on its way is a link)`,
        "the history tools never follow a link",
      );
    return { fd, size: Number(stats.size), dev: Number(stats.dev), ino: Number(stats.ino) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function realProjects(): string {
  const projects = clientProjects();
  try {
    return realpathSync(projects) + sep;
  } catch {
    return projects;
  }
}

function openedPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function sameFile(path: string, stats: { dev: number | bigint; ino: number | bigint }): boolean {
  const other = statSync(path);
  return other.dev === stats.dev && other.ino === stats.ino;
}

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
