/** Gathering the facts a command's views need, once, in parallel where git is asked. */
import type { Workspace } from "../workspace/workspace.ts";
import { readDecisions } from "../decisions/store.ts";
import { newestFirst } from "../ledger/store.ts";
import type { Entry } from "../ledger/line.ts";
import { requireNumber, type LoadedPolicy } from "../policy/index.ts";
import { readQuestions } from "../questions/store.ts";
import { RECORD_KINDS, type RecordKind } from "../records/kinds.ts";
import { divergence } from "../records/labels.ts";
import { resolveLatest, type Place, type Resolution, type Resolved } from "../records/resolve.ts";
import { view, type View } from "../records/view.ts";
import { checkClaims } from "../records/claims-check.ts";
import { offerShared, type SharedBy } from "../records/shared.ts";
import { readLineMaps } from "../records/lines.ts";
import { commitsSince, filesSince, snapshotWithin, type Snapshot } from "../repo/status.ts";
import { historySince } from "../repo/history.ts";
import { activeTask, closedBy, type TasksNow } from "../task/record.ts";
import type { Facts, Need, RecordFact, RecordNeed } from "./facts.ts";
import { episodeGit, windowOf } from "./episode.ts";
import { placeWith, tasksHere } from "./place.ts";
import { liveSessions, type Live } from "./live.ts";
import type { OpenEpisode } from "../session/store.ts";
import { join, relative } from "node:path";
import { trackedWithin, type Tracked } from "../repo/tracked.ts";
import { decisionsPath } from "../decisions/store.ts";
import { questionsPath, type Questions } from "../questions/store.ts";
import type { TaskRead } from "../task/record.ts";

/** Why a file git tracks in the local half is not believed. */
const notBelieved = (root: string, path: string) =>
  `${relative(root, path)} is tracked by git, so a checkout can replace it: it is not believed`;

/** The task record as read, unless git tracks it: then there is no task, and the reason. */
function believedTask<T extends TaskRead>(root: string, read: T, tracked: Tracked): T {
  if (!tracked.files.has(read.path)) return read;
  return { path: read.path, problem: notBelieved(root, read.path) } as T;
}

/** The questions, unless git tracks their file: then it is not read, none is known, and the gates hold. */
function believedQuestions(ws: Workspace, tracked: Tracked): Questions {
  const path = questionsPath(ws.layer);
  if (!tracked.files.has(path)) return readQuestions(ws.layer);
  const text = notBelieved(ws.position.worktree, path);
  return { path, open: [], resolved: [], malformed: [{ line: 0, text, whole: true }] };
}

/** What a command reads of the ledger, newest first, in one pass that stops when each part is whole. */
type Tail = { entries: Entry[]; history: Entry[]; episode: Entry[] };

/**
 * `taskId`: every line back to that task's own `task.started` (bounded by the task, not by
 * history). `history`: the newest lines, this many. `episodeId`: that episode's own lines back to
 * its `session.started`, never by time (returned oldest first).
 */
function ledgerTail(ws: Workspace, want: { taskId?: string; history?: number; episodeId?: string }): Tail {
  const tail: Tail = { entries: [], history: [], episode: [] };
  let taskDone = want.taskId === undefined;
  let episodeDone = want.episodeId === undefined;
  const max = want.history ?? 0;
  for (const parsed of newestFirst(ws.ledger.path)) {
    if (taskDone && episodeDone && tail.history.length >= max) break;
    if (!parsed.ok) continue;
    const e = parsed.entry;
    if (!taskDone) {
      tail.entries.push(e);
      taskDone = e.event === "task.started" && e.task_id === want.taskId;
    }
    if (!episodeDone) {
      if (e.session === want.episodeId) tail.episode.push(e);
      episodeDone = e.event === "session.started" && e.session_id === want.episodeId;
    }
    if (tail.history.length < max) tail.history.push(e);
  }
  tail.episode.reverse();
  return tail;
}

/**
 * What a record is shown against: git status now and how long git may take (its claims), and whose
 * records may still tell the next step (task/record.ts tasksNow: a record of another task is history).
 */
type Now = { snapshot: Promise<Snapshot>; deadlineMs?: number; tasks: Promise<TasksNow | undefined> };

/** The resolved record's view, with what its text cites labelled against the tree now. */
async function checkedView(record: Resolved, ws: Workspace, policy: LoadedPolicy, now: Now): Promise<View> {
  const [shown, claims] = await Promise.all([
    now.tasks.then((tasks) => view(record, ws.position, policy.policy, ws.at, { checking: true, tasks })),
    // The cited files' lines as written are in this checkout's cache for its own records.
    checkClaims(
      record.meta,
      ws.position,
      now.snapshot,
      now.deadlineMs,
      record.tier === 0 ? readLineMaps(ws.layer, record.file) : {},
    ),
  ]);
  return claims ? { ...shown, claims } : shown;
}

/** How a resolved record is shown: labelled, and its citations checked only where a view shows them. */
type Show = (record: Resolved) => Promise<View>;

/** The handover this checkout resolved, as it is offered: a view offers one a teammate shared through git in its place. */
type Offer = (own: Resolution) => Promise<Resolution & { sharedBy?: SharedBy }>;

/** How a command reads the records it resolves: which handover it offers, how it shows it, and a record only named beside it. */
type Reading = { offer: Offer; show: Show; named: Show };

/** A resolved record with its labels; a failure to read is a fact too, never a thrown error. */
async function recordFact(
  kind: RecordKind,
  ws: Workspace,
  reading: Reading,
  place: Place = ws.position,
): Promise<RecordFact> {
  try {
    const own = await resolveLatest(kind, ws.layer, place);
    const resolution: Resolution & { sharedBy?: SharedBy } = kind.name === "handover" ? await reading.offer(own) : own;
    const shown = resolution.record && (await reading.show(resolution.record));
    const sharedBy = resolution.sharedBy;
    return {
      view: shown && sharedBy ? { ...shown, shared: sharedBy } : shown,
      since: resolution.since ? await reading.named(resolution.since) : undefined,
      skipped: resolution.skipped,
    };
  } catch (err) {
    return { skipped: 0, error: (err as Error).message };
  }
}

const NONE: RecordFact = { skipped: 0 };

/** A record whose episode is live beside this one is named as that session's, not as the last session's. */
function byLive(fact: RecordFact, live: readonly Live[]): RecordFact {
  const v = fact.view;
  const author = v && live.find((l) => l.here && l.session_id === v.session);
  if (!v || !author) return fact;
  return {
    ...fact,
    view: {
      ...v,
      live_author: { session_id: author.session_id, provider: author.provider, last_seen: author.last_seen },
    },
  };
}

/**
 * `gitDeadlineMs`: how long the facts may wait for `git status` (the start hook's briefing, which
 * the client waits for); past it the working tree is `unknown` with the reason, and git is stopped.
 */
export type GatherOptions = { episode?: Facts["episode"]; window?: OpenEpisode; gitDeadlineMs?: number };

/** The facts a derived record is composed from: what any text needs, less what only a view shows (facts.ts RecordNeed). */
export function gatherForRecords(
  ws: Workspace,
  needs: readonly RecordNeed[],
  options: GatherOptions = {},
): Promise<Facts> {
  return gatherCore(ws, new Set(needs), options, AS_RECORD);
}

/**
 * The facts a view shows: those of a record, with a handover a teammate shared through git offered
 * where this checkout has no authored one of its own, what the handover and checkpoint cite
 * checked against the tree (`claims`), and the sessions live beside this one (`live`), each record
 * whose episode is one of them named as that session's.
 */
export async function gatherFacts(ws: Workspace, needs: readonly Need[], options: GatherOptions = {}): Promise<Facts> {
  const want = new Set(needs);
  const facts = await gatherCore(ws, want, options, asView(ws, want.has("claims")));
  if (!want.has("live")) return facts;
  const own = options.episode?.session_id ?? ws.episodeId;
  const live = await liveSessions(ws, facts.policy, {
    except: own,
    task: facts.task,
    tracked: new Set(facts.untrusted.files.map((f) => join(ws.position.worktree, f))),
  });
  return { ...facts, live, handover: byLive(facts.handover, live), checkpoint: byLive(facts.checkpoint, live) };
}

/**
 * How a command reads its resolved records, given its policy, git now, and `labelled` (a record
 * shown with its labels only: how every reading shows a record it only names beside another).
 */
type Readings = (policy: LoadedPolicy, now: Now, labelled: Show) => Reading;

/**
 * A derived record speaks of this checkout's own records only (a teammate's shared words are never
 * its worker's own, and a share can be withdrawn), labelled, never quoting a check of citations.
 */
const AS_RECORD: Readings = (_policy, _now, labelled) => ({
  offer: async (own) => own,
  show: labelled,
  named: labelled,
});

/** A view offers a shared handover where this checkout has no authored one, and checks citations when it shows them. */
const asView =
  (ws: Workspace, claims: boolean): Readings =>
  (policy, now, labelled) => ({
    offer: (own) => offerShared(own, ws.layer, ws.position),
    show: claims ? (record) => checkedView(record, ws, policy, now) : labelled,
    named: labelled,
  });

async function gatherCore(ws: Workspace, want: Set<Need>, options: GatherOptions, readings: Readings): Promise<Facts> {
  const episode = options.episode;
  const policy = await ws.policy();
  const p = ws.position;
  // The records are placed against git (a process when a commit differs) while git status runs.
  // The files since a task began are read from the walk since its commit: asked first, so a
  // record at that commit takes the same walk for its label (repo/history.ts).
  const local = join(ws.layer.dir, ws.layer.manifest.local.path);
  // Bounded as git status is: a git that cannot say in time what it tracks leaves the files believed, as before it was asked.
  const tracked = trackedWithin(p.worktree, local, p.git, p.gitDir, options.gitDeadlineMs);
  const taskRead = Promise.all([activeTask(ws.layer), tracked]).then(([found, t]) => {
    const read = believedTask(p.worktree, found, t);
    if (read.active && want.has("since_task")) historySince(p, read.active.head, "files").catch(() => undefined);
    return read;
  });
  const bounded = snapshotWithin(p, ws.own, options.gitDeadlineMs);
  const now: Now = {
    snapshot: bounded,
    deadlineMs: options.gitDeadlineMs,
    tasks: taskRead.then((read) => tasksHere(ws, read)),
  };
  const reading = readings(policy, now, async (record) =>
    view(record, p, policy.policy, ws.at, { tasks: await now.tasks }),
  );
  // The handover that closed the last task carries its words past it (records/resolve.ts).
  const handover = want.has("handover")
    ? Promise.all([taskRead, tracked]).then(([read, t]) =>
        recordFact(RECORD_KINDS.handover, ws, reading, {
          ...placeWith(RECORD_KINDS.handover, p, read),
          tracked: t.files,
        }),
      )
    : Promise.resolve(NONE);
  const checkpoint = want.has("checkpoint")
    ? tracked.then((t) => recordFact(RECORD_KINDS.checkpoint, ws, reading, { ...p, tracked: t.files }))
    : Promise.resolve(NONE);
  const [snap, read, distrusted] = await Promise.all([bounded, taskRead, tracked]);
  const task = read.active;
  const sinceTask =
    task && want.has("since_task")
      ? await Promise.all([divergence({ head: task.head, branch: task.branch }, p), commitsSince(p, task.head)]).then(
          ([label, commits]) => ({ start: task.head, label, commits }),
        )
      : undefined;
  const files = task && want.has("since_task") ? await filesSince(p, task.head, snap, ws.own) : snap.changed;
  const closing = want.has("window") ? options.window : undefined;
  const tail = ledgerTail(ws, {
    taskId: want.has("entries") ? task?.id : undefined,
    history: want.has("history") ? requireNumber(policy, "context.max_list_items") : undefined,
    episodeId: closing?.session_id,
  });
  const window = closing && windowOf(ws, closing, tail.episode, await episodeGit(ws, closing));
  return {
    at: ws.at,
    position: p,
    policy,
    episode,
    snapshot: snap,
    task,
    taskProblem: read.problem,
    closedBy: closedBy(read),
    sinceTask,
    files,
    questions: believedQuestions(ws, distrusted),
    decisions: want.has("decisions") && !distrusted.files.has(decisionsPath(ws.layer)) ? readDecisions(ws.layer) : [],
    entries: tail.entries,
    history: tail.history,
    handover: await handover,
    checkpoint: await checkpoint,
    window,
    live: [],
    untrusted: {
      dir: relative(p.worktree, local),
      files: [...distrusted.files].map((f) => relative(p.worktree, f)).sort(),
    },
  };
}
