/**
 * Closing an episode into exactly one shared record, however many ends arrive and whoever dies on the way. Under a
 * per-episode lock every step checks what is there, so a completer after a killed closer finishes the same close: the
 * record published once (its temp file in the local half), its `session.closed` line once, the context's `## Close`
 * once, then the episode and the claim go.
 */
import { dropNotices } from "../session/notices.ts";
import { sharedToCommit } from "./share.ts";
import { redactForWrite } from "../lib/redact.ts";
import { closeSync, readdirSync, writeSync } from "node:fs";
import { join, relative } from "node:path";
import { errnoCode, Failure } from "../lib/failure.ts";
import { stamp, compactStamp } from "../lib/clock.ts";
import { ensureDir, openAppend, publishNew } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";
import { appendPrepared, lineMaker, newestFirst } from "../ledger/store.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { identityProblems } from "../records/record.ts";
import { sameCheckout } from "../repo/where.ts";
import { episodeKey } from "../session/keys.ts";
import { gatherEpisode, type EpisodeWindow } from "../facts/episode.ts";
import { RECORD_KEYS, type Outcome } from "../session/schema.ts";
import { recordBody, renderRecord, type Closing } from "../views/session-record.ts";
import type { Uptake } from "../transcript/uptake.ts";
import { commitRecord } from "./commit.ts";
import { consentHere } from "./consent.ts";
import { episodePath, readEpisode, removeEpisode, type OpenEpisode } from "../session/store.ts";
import { carriedOn } from "./window.ts";
import { claimClose, closeLock, inProgress, readClaim, releaseClaim } from "./claim.ts";

export type CloseOptions = {
  outcome: Outcome;
  providerSession?: string;
  reason?: string;
  summary?: string;
  policy?: LoadedPolicy;
};
export type Closed =
  | { status: "closed"; episode: OpenEpisode; path: string; committed?: string; completed: boolean }
  | { status: "none" }
  | { status: "already"; episode: OpenEpisode };

const CLOSE_LOCK_MS = 5_000;

function recordOf(dir: string, episodeId: string): string | undefined {
  try {
    return readdirSync(dir).find((n) => n.endsWith(`--${episodeId}.md`) && !n.startsWith("."));
  } catch {
    return undefined;
  }
}

function closedInLedger(ledgerPath: string, episodeId: string): boolean {
  for (const parsed of newestFirst(ledgerPath, episodeId)) {
    if (!parsed.ok) continue;
    if (parsed.entry.event === "session.closed" && parsed.entry.session_id === episodeId) return true;
    if (parsed.entry.event === "session.started" && parsed.entry.session_id === episodeId) return false;
  }
  return false;
}

function appendClose(worktree: string, episode: OpenEpisode, text: string): void {
  const path = join(worktree, episode.context_path);
  try {
    if (readLayerFile(path).includes("\n## Close\n")) return;
    // Never creating the snapshot: a file holding only `## Close` would be a broken working context.
    const fd = openAppend(path, { create: false });
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const why = errnoCode(err) === "ENOENT" ? "it was never written" : (err as Error).message;
    log.warn(`could not append the close to ${episode.context_path}: ${why}`);
  }
}

export async function closeEpisode(ws: Workspace, options: CloseOptions): Promise<Closed> {
  const read = await readEpisode(episodePath(ws.layer, episodeKey(options.providerSession)));
  if (read.problem) throw new Failure("contract", read.problem, "move the file away; nothing can be closed from it");
  const episode = read.episode;
  if (!episode || !sameCheckout(episode, ws.position)) return { status: "none" };
  if (options.summary !== undefined && options.summary.trim() !== "") {
    const problems = identityProblems(options.summary, RECORD_KEYS);
    if (problems.length > 0)
      throw new Failure(
        "contract",
        "the summary tries to set the record's identity",
        "remove those lines; majordomus computes them",
        problems,
      );
  }
  const intent = {
    session_id: episode.session_id,
    provider: episode.provider,
    provider_session: episode.provider_session,
    reason: options.reason,
    outcome: options.outcome,
  };
  if (!claimClose(ws.layer, intent)) {
    // Someone took the claim: still writing, leave it; gone, finish their close.
    const claim = readClaim(ws.layer, episode.session_id)?.claim;
    if (claim && inProgress(claim)) return { status: "already", episode };
    log.info(
      `the close of ${episode.session_id} was claimed ` +
        `at ${claim?.claimed_at ?? "an unknown time"} and never finished; finishing it`,
    );
  }

  return writeClose(ws, episode, await gatherEpisode(ws, episode), options);
}

const busy = (id: string) =>
  new Failure(
    "refused",
    `another majordomus is writing the close of ${id}`,
    "retry in a moment; `majordomus recover` finishes it if that writer died",
  );

/** Uptake for the tracked record: the names it keeps pass the one gate, as everything else it holds. */
async function gatedUptake(ws: Workspace, episode: OpenEpisode, window: EpisodeWindow): Promise<Uptake | undefined> {
  if (!window.handed) return undefined;
  const { gatherUptake } = await import("../facts/uptake.ts");
  // What git shows changed in the session checks the edits the client reports (none changed: none counts), when git answered.
  const known = window.commits[0] !== "unknown";
  const uptake = await gatherUptake(ws.position.worktree, episode, window.handed, known ? window.files : undefined);
  const gate = (names: string[]) =>
    Promise.all(names.map((n) => redactForWrite(n, "uptake of the handed Next Action")));
  const [handed, named, actedOn] = await Promise.all([
    gate([uptake.handed]),
    gate(uptake.named),
    gate(uptake.acted_on),
  ]);
  return { ...uptake, handed: handed[0]!, named, acted_on: actedOn };
}

/** Write the close of `episode` (the caller holds its claim) from the window the caller gathered. */
export async function writeClose(
  ws: Workspace,
  episode: OpenEpisode,
  window: EpisodeWindow,
  options: CloseOptions,
): Promise<Closed> {
  const key = episodeKey(options.providerSession);
  const closing: Closing = { closedAt: stamp(), outcome: options.outcome, reason: options.reason };
  closing.uptake = await gatedUptake(ws, episode, window);
  // The record goes to the tracked half: whatever it quotes carries no secret.
  const body = await redactForWrite(
    options.summary?.trim() ? options.summary : recordBody(window, closing, options.policy?.policy),
    "closed session record",
  );
  const dir = sectionPath(ws.layer, "sessions");
  ensureDir(dir);
  const fresh = `${compactStamp(new Date(closing.closedAt))}--${episode.session_id}.md`;
  const line = await lineMaker(inEpisode(ws, episode));
  const state = sectionPath(ws.layer, "state");

  const done = withLock(closeLock(ws.layer, episode.session_id), CLOSE_LOCK_MS, () => {
    const existing = recordOf(dir, episode.session_id);
    const name = existing ?? fresh;
    const rel = relative(ws.position.worktree, join(dir, name));
    if (!existing && !publishNew(join(dir, fresh), renderRecord(window, closing, body), 0o644, { tempDir: state }))
      throw new Failure("internal", `${rel} already exists`, "impossible: the name carries the episode id");
    if (!existing || !closedInLedger(ws.ledger.path, episode.session_id))
      appendPrepared(
        inEpisode(ws, episode),
        line("session.closed", { session_id: episode.session_id, outcome: options.outcome, session_path: rel }),
      );
    appendClose(
      ws.position.worktree,
      episode,
      `\n## Close\n\n- closed_at: ${closing.closedAt}\n- outcome: ${options.outcome}\n- ` +
        `head: ${ws.position.head}\n- record: ${rel}\n`,
    );
    removeEpisode(ws.layer, key);
    dropNotices(ws.layer, episode.session_id);
    releaseClaim(ws.layer, episode.session_id);
    return { rel, completed: existing !== undefined };
  });
  if (!done.acquired) throw busy(episode.session_id);
  await carriedOn(ws, episode);
  const committed = await committedIfConsented(ws, done.value, episode, options);
  return { status: "closed", episode, path: done.value.rel, committed, completed: done.value.completed };
}

/** The record committed (and pushed) when the person consented in this checkout; what was not done is said. */
async function committedIfConsented(
  ws: Workspace,
  { rel, completed }: { rel: string; completed: boolean },
  episode: OpenEpisode,
  options: CloseOptions,
): Promise<string | undefined> {
  // Consent from a file git tracks is no consent.
  const commit = await consentHere(ws.position, options.policy, "session.commit_record_on_end");
  const push = await consentHere(ws.position, options.policy, "session.push_record_on_end");
  if (commit.tracked) log.warn(`${commit.why}; nothing was committed or pushed`);
  const committed =
    commit.on && !completed
      ? await commitRecord(ws, [rel, ...sharedToCommit(ws)], episode.session_id, push.on)
      : undefined;
  const consentFile = options.policy?.credentials?.path ?? "the local consent file";
  for (const [key, g] of [
    ["session.commit_record_on_end", commit],
    ["session.push_record_on_end", push],
  ] as const)
    if (g.asked && !g.on)
      log.warn(
        `the tracked policy sets ${key}: true; that acts with your credentials, so majordomus does it only ` +
          `when you consent in ${consentFile} (docs/security.md); not done`,
      );
  if (options.policy?.credentials?.problem) log.warn(options.policy.credentials.problem);
  return committed;
}
