/**
 * Closing an episode into exactly one shared record, however many end events arrive: the first
 * closer claims the episode (a file created with O_EXCL), every later one finds the claim and
 * adds nothing. The snapshot gets a `## Close` section appended; it is never rewritten.
 */
import { sameCheckout } from "../repo/where.ts";
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { join, relative } from "node:path";
import { errnoCode, Failure } from "../lib/failure.ts";
import { stamp, compactStamp } from "../lib/clock.ts";
import { ensureDir, publishNew } from "../lib/fsx.ts";
import { log } from "../lib/log.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";
import { appendEvent } from "../ledger/store.ts";
import { consents, type LoadedPolicy } from "../policy/index.ts";
import { identityProblems } from "../records/record.ts";
import { episodeKey } from "../session/keys.ts";
import { gatherEpisode, type EpisodeWindow } from "../facts/episode.ts";
import { RECORD_KEYS, type Outcome } from "../session/schema.ts";
import { recordBody, renderRecord } from "../views/session-record.ts";
import { commitRecord } from "./commit.ts";
import { episodePath, readEpisode, removeEpisode, type OpenEpisode } from "../session/store.ts";
import { claimClose } from "./claim.ts";

export type CloseOptions = {
  outcome: Outcome;
  providerSession?: string;
  reason?: string;
  summary?: string;
  policy?: LoadedPolicy;
  claimed?: boolean;
  /** The episode's window, when the caller gathered it already (the end hook, with what it just wrote). */
  window?: EpisodeWindow;
};
export type Closed = { status: "closed"; episode: OpenEpisode; path: string; committed?: string } | { status: "none" } | { status: "already"; episode: OpenEpisode };

export async function closeEpisode(here: Workspace, options: CloseOptions): Promise<Closed> {
  const key = episodeKey(options.providerSession);
  const read = await readEpisode(episodePath(here.layer, key));
  if (read.problem) throw new Failure("contract", read.problem, "move the file away; nothing can be closed from it");
  const episode = read.episode;
  if (!episode || !sameCheckout(episode, here.position)) return { status: "none" };
  if (options.summary !== undefined && options.summary.trim() !== "") {
    const problems = identityProblems(options.summary, RECORD_KEYS);
    if (problems.length > 0) throw new Failure("contract", "the summary tries to set the record's identity", "remove those lines; majordomus computes them", problems);
  }

  if (!options.claimed && !claimClose(here, episode.session_id)) return { status: "already", episode };

  const closing = { closedAt: stamp(), outcome: options.outcome, reason: options.reason };
  const window = options.window?.episode.session_id === episode.session_id ? options.window : await gatherEpisode(here, episode);
  const closedAt = closing.closedAt;
  const body = options.summary?.trim() ? options.summary : recordBody(window, closing, options.policy?.policy);
  const dir = sectionPath(here.layer, "sessions");
  ensureDir(dir);
  const path = join(dir, `${compactStamp(new Date(closedAt))}--${episode.session_id}.md`);
  // Shared with every clone: readable like any tracked file.
  if (!publishNew(path, renderRecord(window, closing, body), 0o644)) throw new Failure("internal", `${path} already exists`, "this should be impossible: the claim is taken once");
  const rel = relative(here.position.worktree, path);
  const stamped = { ...here, session: episode.session_id };
  await appendEvent(stamped, "session.closed", { session_id: episode.session_id, outcome: options.outcome, session_path: rel });
  try {
    // Appended to a snapshot that exists, never creating one: a file holding only `## Close` would
    // be a broken working context.
    const fd = openSync(join(here.position.worktree, episode.context_path), constants.O_WRONLY | constants.O_APPEND);
    try {
      writeSync(fd, `\n## Close\n\n- closed_at: ${closedAt}\n- outcome: ${options.outcome}\n- head: ${here.position.head}\n- record: ${rel}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const why = errnoCode(err) === "ENOENT" ? "it was never written" : (err as Error).message;
    log.warn(`could not append the close to ${episode.context_path}: ${why}`);
  }
  removeEpisode(here.layer, key);
  let committed: string | undefined;
  if (consents(options.policy?.policy, "session.commit_record_on_end")) {
    committed = await commitRecord(here, rel, episode.session_id, consents(options.policy?.policy, "session.push_record_on_end"));
  }
  return { status: "closed", episode, path: rel, committed };
}
