/**
 * Which transcript the history tools may open, and opening it: the one the client's start event named for the
 * session, under `<client config>/projects/`, never through a link, for the client that opened the episode.
 */
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { Failure, isFailure } from "../lib/failure.ts";
import { openUnder } from "../lib/safe-read.ts";
import { workspace } from "../workspace/workspace.ts";
import { attributedEpisode } from "../session/attribution.ts";
import type { OpenEpisode } from "../session/store.ts";
import { env, clientEnv } from "../lib/env.ts";

const SESSION_ENV = "CLAUDE_CODE_SESSION_ID";

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

/** The transcript opened as the client's own file: the one safe open, held to the client's transcript folder. */
export function openTranscript(source: Source): { fd: number; size: number; dev: number; ino: number } {
  let opened: ReturnType<typeof openUnder>;
  try {
    opened = openUnder(source.path, clientProjects());
  } catch (err) {
    if (isFailure(err))
      throw new Failure(
        "refused",
        `the transcript ${source.path} is not a plain file of the client's own folder (a link on its way, a folder ` +
          `or a device)`,
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
  return { fd, size: Number(stats.size), dev: Number(stats.dev), ino: Number(stats.ino) };
}
