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
import { liveSessions, stoppedSessions, type Live } from "./live.ts";
import type { OpenEpisode } from "../session/store.ts";
import { actedFor, type Acted } from "../session/closed.ts";
import { join, relative } from "node:path";
import { trackedWithin, type Tracked } from "../repo/tracked.ts";
import { decisionsPath } from "../decisions/store.ts";
import { questionsPath, type Questions } from "../questions/store.ts";
import type { TaskRead } from "../task/record.ts";

const notBelieved = (root: string, path: string) =>
  `${relative(root, path)} is tracked by git, so a checkout can replace it: it is not believed`;

function believedTask<T extends TaskRead>(root: string, read: T, tracked: Tracked): T {
  if (!tracked.files.has(read.path)) return read;
  return { path: read.path, problem: notBelieved(root, read.path) } as T;
}

/** The questions, unless git tracks their file: then none is known and the gates hold. */
function believedQuestions(ws: Workspace, tracked: Tracked): Questions {
  const path = questionsPath(ws.layer);
  if (!tracked.files.has(path)) return readQuestions(ws.layer);
  const text = notBelieved(ws.position.worktree, path);
  return { path, open: [], resolved: [], malformed: [{ line: 0, text, whole: true }] };
}

type Tail = { entries: Entry[]; history: Entry[]; episode: Entry[] };

/** One pass from the end: to `taskId`'s start, the newest `history` lines, `episodeId`'s lines (oldest first). */
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

/** What a record is shown against: git status now, git's deadline, the tasks whose records may tell the next step. */
type Now = { snapshot: Promise<Snapshot>; deadlineMs?: number; tasks: Promise<TasksNow | undefined> };

async function checkedView(record: Resolved, ws: Workspace, policy: LoadedPolicy, now: Now): Promise<View> {
  const [shown, claims] = await Promise.all([
    now.tasks.then((tasks) => view(record, ws.position, policy.policy, ws.at, { checking: true, tasks })),
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

type Show = (record: Resolved) => Promise<View>;

/** A view offers a handover a teammate shared through git in place of this checkout's own. */
type Offer = (own: Resolution) => Promise<Resolution & { sharedBy?: SharedBy }>;

/** Whether a later session acted on a record's Next Action (views only: a derived record tells its own account). */
type Reading = {
  offer: Offer;
  show: Show;
  named: Show;
  acted: (kind: string, v: View) => Promise<Acted | undefined>;
};

/** A resolved record with its labels; a failure to read is a fact, never a thrown error. */
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
    const acted = shown && (await reading.acted(kind.name, shown));
    return {
      view: shown && sharedBy ? { ...shown, shared: sharedBy } : shown,
      since: resolution.since ? await reading.named(resolution.since) : undefined,
      skipped: resolution.skipped,
      ...(acted ? { acted } : {}),
    };
  } catch (err) {
    return { skipped: 0, error: (err as Error).message };
  }
}

const NONE: RecordFact = { skipped: 0 };

/** A record whose episode is live beside this one is named as that session's. */
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

/** `gitDeadlineMs`: how long to wait for `git status`; past it the working tree is `unknown` and git is stopped. */
export type GatherOptions = { episode?: Facts["episode"]; window?: OpenEpisode; gitDeadlineMs?: number };

export function gatherForRecords(
  ws: Workspace,
  needs: readonly RecordNeed[],
  options: GatherOptions = {},
): Promise<Facts> {
  return gatherCore(ws, new Set(needs), options, AS_RECORD);
}

/** A view's facts: a record's (or a teammate's shared one), citations checked, the sessions live beside this one. */
export async function gatherFacts(ws: Workspace, needs: readonly Need[], options: GatherOptions = {}): Promise<Facts> {
  const want = new Set(needs);
  const facts = await gatherCore(ws, want, options, asView(ws, want.has("claims")));
  if (!want.has("live")) return facts;
  const own = options.episode?.session_id ?? ws.episodeId;
  const tracked = new Set(facts.untrusted.files.map((f) => join(ws.position.worktree, f)));
  const [live, stopped] = await Promise.all([
    liveSessions(ws, facts.policy, { except: own, task: facts.task, tracked }),
    stoppedSessions(ws, own, tracked),
  ]);
  return {
    ...facts,
    live,
    stopped,
    handover: byLive(facts.handover, live),
    checkpoint: byLive(facts.checkpoint, live),
  };
}

type Readings = (policy: LoadedPolicy, now: Now, labelled: Show) => Reading;

/** A derived record speaks of this checkout's own records only (a teammate's words are never its worker's own). */
const AS_RECORD: Readings = (_policy, _now, labelled) => ({
  offer: async (own) => own,
  show: labelled,
  named: labelled,
  acted: async () => undefined,
});

const asView =
  (ws: Workspace, claims: boolean): Readings =>
  (policy, now, labelled) => ({
    offer: (own) => offerShared(own, ws.layer, ws.position),
    show: claims ? (record) => checkedView(record, ws, policy, now) : labelled,
    named: labelled,
    acted: (kind, v) => actedFor(ws, kind, v),
  });

async function gatherCore(ws: Workspace, want: Set<Need>, options: GatherOptions, readings: Readings): Promise<Facts> {
  const episode = options.episode;
  const policy = await ws.policy();
  const p = ws.position;
  // The records are placed against git while git status runs; the task's files come from its label's walk.
  const local = join(ws.layer.dir, ws.layer.manifest.local.path);
  // A git that cannot say in time what it tracks leaves the files believed, as before it was asked.
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
  // The newest checkpoint, already read, is quoted from that read.
  const window = closing && windowOf(ws, closing, tail.episode, await episodeGit(ws, closing), (await checkpoint).view);
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
    stopped: [],
    untrusted: {
      dir: relative(p.worktree, local),
      files: [...distrusted.files].map((f) => relative(p.worktree, f)).sort(),
    },
  };
}
