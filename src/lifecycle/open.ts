/**
 * Opening an episode: one per provider session (and one by hand), exactly once however many starts race. A
 * working-context snapshot that cannot be written never stops the open.
 */
import { sameCheckout, sameRepository } from "../repo/where.ts";
import { existsSync, renameSync } from "node:fs";
import { join, relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { wall, stamp, isoStamp, compactStamp } from "../lib/clock.ts";
import { ensureDir, publishNew, randomHex } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { log } from "../lib/log.ts";
import { emitMap } from "../lib/yaml-emit.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";
import { appendEvent } from "../ledger/store.ts";
import { snapshotWithin } from "../repo/status.ts";
import { activeTask } from "../task/record.ts";
import { episodeKey } from "../session/keys.ts";
import { episodePath, openDir, readEpisode, setPointer, writeEpisode, type OpenEpisode } from "../session/store.ts";
import { env } from "../lib/env.ts";

export type OpenOptions = {
  ifOpen: "refuse" | "keep";
  openedBy: "hook" | "hand" | "connection";
  provider?: string;
  providerSession?: string;
  owner?: string;
  worker?: string;
  /** `later`: the caller (a hook's worker) freezes the working context. */
  snapshot?: "now" | "later";
  gitDeadlineMs?: number;
  transcriptPath?: string;
  clientProcesses?: string;
};

export type Opened = { episode: OpenEpisode; key: string; kept: boolean };

const LOCK_WAIT_MS = 5_000;

/** A closed set, so no transcript can ride along. */
export const CONTEXT_KEYS = [
  "schema",
  "session_id",
  "opened_at",
  "opened_by",
  "provider",
  "provider_session",
  "branch",
  "head",
  "task",
  "profile",
  "worker",
] as const;

async function writeSnapshot(ws: Workspace, episode: OpenEpisode, profile: string): Promise<void> {
  const path = join(ws.position.worktree, episode.context_path);
  let context: string;
  try {
    const [{ gatherFacts }, { CONTEXT_NEEDS, contextView }] = await Promise.all([
      import("../facts/gather.ts"),
      import("../views/context.ts"),
    ]);
    context = contextView(await gatherFacts(inEpisode(ws, episode), CONTEXT_NEEDS)).lines.join("\n");
  } catch (err) {
    context = `(the context builder could not run: ${(err as Error).message})`;
  }
  const front = emitMap([
    ["schema", "session-context/v1"],
    ["session_id", episode.session_id],
    ["opened_at", episode.opened_at],
    ["opened_by", episode.opened_by],
    ["provider", episode.provider],
    ["provider_session", episode.provider_session],
    ["branch", episode.branch],
    ["head", episode.start_head],
    ["task", episode.task_id],
    ["profile", profile],
    ["worker", episode.worker],
  ]);
  const body = [
    `# Working context of ${episode.session_id}, frozen at open`,
    "",
    "What this episode was handed when it opened: evidence of what it knew, not the truth now.",
    "`majordomus session context` composes the live view; this file is appended to, never rewritten.",
    "",
    "## Context at open",
    "",
    context,
  ].join("\n");
  ensureDir(sectionPath(ws.layer, "session_contexts"), 0o700);
  if (!publishNew(path, `---\n${front}---\n\n${body}\n`, 0o600)) throw new Error(`${path} already exists`);
}

function peek(
  path: string,
): { kind: "none" } | { kind: "broken" } | { kind: "open"; worktree: string; repository?: string } {
  let text: string;
  try {
    text = readLayerFile(path);
  } catch {
    return { kind: "none" };
  }
  const worktree = /^worktree:\s*(.+)$/m.exec(text)?.[1];
  const id = /^session_id:\s*(\S+)$/m.exec(text)?.[1];
  if (!worktree || !id) return { kind: "broken" };
  const repository = /^repository_id:\s*(.+)$/m.exec(text)?.[1]?.replace(/^"(.*)"$/, "$1");
  return { kind: "open", worktree: worktree.replace(/^"(.*)"$/, "$1"), repository };
}

export async function openEpisode(ws: Workspace, options: OpenOptions): Promise<Opened> {
  const key = episodeKey(options.providerSession);
  const path = episodePath(ws.layer, key);
  ensureDir(openDir(ws.layer), 0o700);
  const at = wall();
  // A resumed session keeps its episode: decided before paying for git status.
  if (options.ifOpen === "keep") {
    const kept = (await readEpisode(path)).episode;
    if (kept && sameCheckout(kept, ws.position)) return { episode: kept, key, kept: true };
  }
  const bounded = snapshotWithin(ws.position, ws.own, options.gitDeadlineMs);
  const [read, state] = await Promise.all([activeTask(ws.layer), bounded]);
  const task = read.active;
  const id = `s-${compactStamp(at).replace(/[TZ]/g, "")}-${randomHex(6)}`;
  const p = ws.position;
  const candidate: OpenEpisode = {
    session_id: id,
    opened_at: isoStamp(at),
    opened_by: options.openedBy,
    owner: options.owner?.trim() || env("USER") || env("USERNAME") || "unknown",
    worker: options.worker ?? "none",
    provider: options.provider ?? "none",
    provider_session: options.providerSession ?? "none",
    repository_id: p.repositoryId,
    worktree: p.worktree,
    branch: p.branch,
    start_head: p.head,
    start_working_tree: state.workingTree,
    task_id: task?.id ?? "none",
    context_path: relative(
      p.worktree,
      join(sectionPath(ws.layer, "session_contexts"), `${compactStamp(at)}--${id}.md`),
    ),
    window: "0",
    ...(options.transcriptPath ? { transcript_path: options.transcriptPath } : {}),
    ...(options.clientProcesses ? { client_processes: options.clientProcesses } : {}),
  };
  // Keep-or-create under one lock: racing starts open one episode.
  const lock = `${path}.lock`;
  const outcome = withLock(lock, LOCK_WAIT_MS, () => {
    const current = peek(path);
    if (
      current.kind === "open" &&
      (current.worktree === p.worktree || (current.repository !== undefined && sameRepository(current.repository, p)))
    )
      return "kept" as const;
    if (current.kind !== "none") {
      const aside = `${path}.set-aside-${compactStamp(at)}-${randomHex(2)}`;
      renameSync(path, aside);
      log.warn(`${path} was ${current.kind === "broken" ? "unreadable" : "another worktree's"}; moved to ${aside}`);
    }
    writeEpisode(ws.layer, key, candidate);
    setPointer(ws.layer, key);
    return "created" as const;
  });
  if (!outcome.acquired)
    throw new Failure("refused", `the episode lock ${lock} is held by another majordomus`, "retry in a moment");

  if (outcome.value === "kept") {
    const kept = (await readEpisode(path)).episode;
    if (!kept)
      throw new Failure("contract", `${path} could not be read`, "move it away; the next start opens a new episode");
    if (options.ifOpen === "refuse") {
      throw new Failure(
        "refused",
        `episode ${kept.session_id} is already open here since ${kept.opened_at}`,
        "close it with `majordomus session close`, or pass --if-open keep",
      );
    }
    return { episode: kept, key, kept: true };
  }
  await appendEvent(inEpisode(ws, candidate), "session.started", {
    session_id: candidate.session_id,
    opened_by: candidate.opened_by,
    owner: candidate.owner,
    provider: candidate.provider,
    provider_session: candidate.provider_session,
    worker: candidate.worker,
  });
  if (options.snapshot !== "later") await freezeContext(inEpisode(ws, candidate), candidate, task?.profile ?? "none");
  return { episode: candidate, key, kept: false };
}

/** The episode's frozen working context, written once; a failure is logged, never raised. */
export async function freezeContext(ws: Workspace, episode: OpenEpisode, profile?: string): Promise<void> {
  try {
    if (existsSync(join(ws.position.worktree, episode.context_path))) return;
    await writeSnapshot(ws, episode, profile ?? (await activeTask(ws.layer)).active?.profile ?? "none");
  } catch (err) {
    const { logContextFailure } = await import("./context-log.ts");
    log.warn(`the working context of ${episode.session_id} was not written: ${(err as Error).message}`);
    logContextFailure(ws, `${stamp()} ${episode.session_id}: snapshot not written: ${(err as Error).message}`);
  }
}
