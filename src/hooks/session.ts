/**
 * `capture session --provider P --event start|compact|end`: what the client's hooks run, driven by
 * one table of events (SESSION_EVENTS below).
 *
 * The receipt (`provider.event.received`) is written before anything can fail, and a failure is
 * recorded (`provider.event.failed` with the reason) rather than raised: a hook must return
 * success to its client, and returning success is not the same as claiming the work was done.
 * Only the start event writes to stdout (the briefing); nothing here exits 2.
 *
 * Each event row says what the client waits for (its answer), the work the client does not read
 * (handed to a detached worker through a ticket, or done here when no worker can start), which
 * handed-off work it waits for first, and the policy switch that turns its work off.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { stamp } from "../lib/clock.ts";
import { clientProcess } from "../lib/holder.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendEvent, ledgerOf, newestFirst } from "../ledger/store.ts";
import { switchOn, type CredentialKey, type LoadedPolicy, type SwitchKey } from "../policy/index.ts";
import { logContextFailure } from "../lifecycle/context-log.ts";
import { redactShapes } from "../lib/redact.ts";
import { adapted, budgetFor, providers } from "../providers/index.ts";
import { stopGitWithin } from "../repo/git.ts";
import { HOOKS } from "../providers/hooks.ts";
import type { Briefing } from "../views/briefing.ts";
import type { Facts } from "../facts/facts.ts";
import type { OpenEpisode } from "../session/store.ts";
import type { Claim } from "../lifecycle/claim.ts";
import type { HookCall, SessionEvent } from "./delivery.ts";
import {
  awaitWork,
  handOff,
  readTicket,
  settle,
  settleTaken,
  takeOver,
  tickets,
  TICKET_SCHEMA,
  type Order,
  type WorkMode,
  type Ticket,
} from "./handoff.ts";

/** Record that some work this event asked for did not complete. Never throws. */
async function failed(
  ws: Workspace,
  d: Pick<HookCall, "event" | "providerSession"> & { provider: { id: string } },
  text: string,
): Promise<void> {
  // A reason may quote what the payload carried: no secret is stored or printed with it.
  const reason = redactShapes(text);
  log.warn(`capture session (${d.event}): ${reason}`);
  logContextFailure(ws, `${stamp()} ${d.provider.id} ${d.event} ${d.providerSession ?? "-"}: ${reason}`);
  try {
    await appendEvent(ws, "provider.event.failed", { provider: d.provider.id, provider_event: d.event, reason });
  } catch (err) {
    log.warn(`the failure could not be recorded in the ledger either: ${(err as Error).message}`);
  }
}

type Who = Parameters<typeof failed>[1];

async function attempt(ws: Workspace, d: Who, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    await failed(ws, d, `${what}: ${(err as Error).message}`);
  }
}

async function policyOrFail(ws: Workspace, d: Who): Promise<LoadedPolicy | undefined> {
  try {
    return await ws.policy();
  } catch (err) {
    await failed(ws, d, `the policy could not be read (${(err as Error).message.split("\n")[0]})`);
    return undefined;
  }
}

/** What the client reads on stdout, and the work left for after the answer (none: nothing to hand off). */
/** `claim`: the close claim the answer read, for work done in the same hook (never in a ticket). */
type Answer = { stdout?: string; work?: Order; claim?: Claim };

type Row = {
  /** What the client waits for. `ws` was located for the delivery's client session. */
  answer(ws: Workspace, d: HookCall): Promise<Answer>;
  /** The work the client does not read, from its ticket alone. */
  work(ws: Workspace, t: Ticket, policy: LoadedPolicy | undefined, claim?: Claim): Promise<void>;
  /** Handed-off work of these events is waited for (at most `ms`) before the answer, or before the work. */
  waits?: { for: readonly SessionEvent[]; ms: number; before: "answer" | "work" };
  /** The work is done in the hook before it answers the client's wait, never handed to a worker. */
  inHook?: boolean;
  /** What the event records before even its receipt (the end's claim). */
  beforeReceipt?(ws: Workspace, d: HookCall): Promise<void>;
  /**
   * The switch that turns the event's product off: the briefing, the checkpoint, the continuation
   * record. Start and compact read theirs here; the end's is read by the close it shares with
   * `recover` (lifecycle/finish.ts), which also honours the checkpoint switch for its last checkpoint.
   */
  switch: Exclude<SwitchKey, CredentialKey>;
};

/** The longest a start waits for a close still being written in its checkout. */
const CLOSE_WAIT_MS = 2_000;

/** The longest the start hook ever waits for git, whatever the policy says (session.git_deadline_ms lowers it). */
const GIT_CEILING_MS = 2_000;

/** The order a delivery leaves for its work: what the worker needs, nothing else. */
const orderOf = (d: HookCall, extra: Partial<Order> = {}): Order => ({
  event: d.event,
  provider: d.provider.id,
  provider_session: d.providerSession,
  source: d.source,
  reason: d.reason,
  ...extra,
});

/** Each event loads only the modules its own work needs: a hook pays for what it does. */
export async function derivedCheckpoint(ws: Workspace, policy: LoadedPolicy, compressions?: number): Promise<string> {
  const [{ gatherForRecords }, { CHECKPOINT_NEEDS, deriveCheckpoint }, { writeRecord }, { RECORD_KINDS }] =
    await Promise.all([
      import("../facts/gather.ts"),
      import("../views/derived.ts"),
      import("../lifecycle/records.ts"),
      import("../records/kinds.ts"),
    ]);
  const body = deriveCheckpoint(await gatherForRecords(ws, CHECKPOINT_NEEDS));
  return (await writeRecord(ws, RECORD_KINDS.checkpoint, body, policy, { how: "derived", compressions })).relativePath;
}

/** Any event's work finishes the closes whose taker died: a claimed close is a promise the checkout keeps. */
async function finishLeftCloses(ws: Workspace, t: Ticket, policy: LoadedPolicy | undefined): Promise<void> {
  const { readClaims } = await import("../lifecycle/claim.ts");
  if (readClaims(ws.layer).length === 0) return;
  const { finishUnfinished } = await import("../lifecycle/finish.ts");
  await attempt(ws, who(t), "unfinished closes were not finished", async () => {
    for (const f of await finishUnfinished(ws, policy)) log.info(`finished the close of ${f.episodeId} (${f.result})`);
  });
}

/** What the start handed the client, in the ledger: its size, the channel's budget, and every part cut to fit (`majordomus history --event session.briefed`). */
async function noteBriefing(ws: Workspace, d: HookCall, b: Briefing): Promise<void> {
  const cuts = b.cuts.map((c) => c.part);
  await attempt(ws, d, "the briefing's size was not recorded", async () => {
    await appendEvent(ws, "session.briefed", {
      provider: d.provider.id,
      provider_session: d.providerSession ?? "none",
      chars: b.size,
      budget: b.budget?.chars ?? 0,
      counts: b.budget?.counts ?? "utf16",
      ...(cuts.length ? { cuts } : {}),
      ...(b.withheld ? { withheld_lines: b.withheld } : {}),
    });
  });
  if (cuts.length)
    log.info(`the briefing was shortened to fit ${b.budget?.channel ?? "its line budget"}: ${cuts.join(", ")}`);
}

/**
 * At the end, what the client's transcript shows of the briefing it was handed: inline, collapsed
 * into a preview, missing, or not provable (a client whose transcript is not read). Only when the
 * briefing is on: with it off there was nothing to deliver.
 */
async function noteDelivery(
  ws: Workspace,
  episode: NonNullable<Workspace["episode"]>,
  t: Ticket,
  policy: LoadedPolicy | undefined,
): Promise<void> {
  if (!policy || !switchOn(policy.policy, start.switch)) return;
  const [{ deliveryOf }, provider] = await Promise.all([import("../transcript/delivery.ts"), adapted(t.provider)]);
  const verdict = deliveryOf(provider.id, episode.transcript_path, provider.hooks.events.start.shim);
  await appendEvent(ws, "session.delivery", {
    provider: provider.id,
    provider_session: episode.provider_session ?? "none",
    delivery: verdict.state,
    cause: redactShapes(verdict.cause),
  });
  if (verdict.state === "collapsed" || verdict.state === "missing")
    log.warn(`the briefing of ${episode.session_id} was ${verdict.state}: ${verdict.cause}`);
}

/** What a start opened (or kept), and what its answer is bounded by. */
type Began = {
  opened?: { episode: OpenEpisode; kept: boolean };
  policy: LoadedPolicy | undefined;
  gitDeadlineMs: number;
};

/**
 * The start's answer once its episode is open, in that episode's workspace: the briefing, the live
 * sessions told of a new one, and whether work is left for a worker.
 */
async function briefIn(ws: Workspace, d: HookCall, { opened, policy, gitDeadlineMs }: Began): Promise<Answer> {
  const [{ gatherFacts }, { BRIEFING_NEEDS, briefing }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/briefing.ts"),
  ]);
  const fresh = opened !== undefined && !opened.kept;
  let stdout: string | undefined;
  let briefed: Briefing | undefined;
  let facts: Facts | undefined;
  if (policy && switchOn(policy.policy, start.switch)) {
    await attempt(ws, d, "the briefing was not composed", async () => {
      facts = await gatherFacts(ws, BRIEFING_NEEDS, {
        episode: opened ? { session_id: opened.episode.session_id, kept: opened.kept } : undefined,
        gitDeadlineMs,
      });
      const made = briefing(facts, budgetFor(d.provider.hooks, HOOKS.start.channel!, policy?.policy));
      stdout = made.lines.join("\n");
      briefed = made;
    });
    if (briefed) await noteBriefing(ws, d, briefed);
  }
  // The sessions already at work beside a new one are told of it at their next prompt, once.
  if (fresh && opened && facts && facts.live.length > 0) {
    const live = facts.live;
    const episode = opened.episode;
    const taskId = facts.task?.id;
    await attempt(ws, d, "the live sessions beside it were not told", async () => {
      const { tellLive } = await import("../lifecycle/live.ts");
      await tellLive(ws, episode, live, taskId);
    });
  }
  // Work is left only for a new episode (its working context), an episode old enough to be
  // stranded, or a close whose taker died before finishing it.
  const [{ anyStrandedCandidate }, { readClaims }] = await Promise.all([
    import("../lifecycle/stranded.ts"),
    import("../lifecycle/claim.ts"),
  ]);
  if (
    !fresh &&
    readClaims(ws.layer).length === 0 &&
    !(await anyStrandedCandidate(ws, policy, opened?.episode.session_id).catch(() => true))
  )
    return { stdout };
  return { stdout, work: orderOf(d, { fresh }) };
}

const start: Row = {
  switch: "session.briefing_on_start",
  // After /clear the start follows an end at once: its briefing must show the close just derived
  // (the end writes it in its own hook, so it is a close claim that is waited for, not a ticket).
  async answer(ws, d) {
    const { awaitCloses } = await import("../lifecycle/claim.ts");
    const followsEnd =
      d.source !== undefined &&
      d.providerSession !== undefined &&
      (d.provider.hooks.after_end_sources ?? []).includes(d.source);
    const waited = await awaitCloses(
      ws.layer,
      CLOSE_WAIT_MS,
      followsEnd ? { provider: d.provider.id, providerSession: d.providerSession! } : undefined,
    );
    if (waited > 0) log.debug(`waited ${waited} ms for a close in progress`);
    // The briefing's modules load with the opening's (briefIn finds them loaded).
    const [{ openEpisode }] = await Promise.all([
      import("../lifecycle/open.ts"),
      import("../facts/gather.ts"),
      import("../views/briefing.ts"),
    ]);
    // One deadline for git on the client's path: opening the episode and the briefing share it.
    const policy = await policyOrFail(ws, d);
    const gitDeadlineMs = Math.min(policy?.policy.session?.git_deadline_ms ?? GIT_CEILING_MS, GIT_CEILING_MS);
    let opened: Awaited<ReturnType<typeof openEpisode>> | undefined;
    if (d.providerSession !== undefined)
      await attempt(ws, d, "the episode did not open", async () => {
        // Who started this hook (the client, through its shell and the shim): the history tools serve a transcript only to the client whose hooks opened its episode.
        const clientProcesses = clientProcess();
        opened = await openEpisode(ws, {
          ifOpen: "keep",
          openedBy: "hook",
          provider: d.provider.id,
          providerSession: d.providerSession,
          snapshot: "later",
          gitDeadlineMs,
          transcriptPath: d.transcript,
          clientProcesses,
        });
        const note = { transcript_path: d.transcript, client_processes: clientProcesses };
        const kept = opened.kept ? opened.episode : undefined;
        if (kept && Object.entries(note).some(([k, v]) => v !== undefined && kept[k as keyof typeof note] !== v))
          opened.episode = await (await import("../lifecycle/window.ts")).noteClient(ws, opened.episode, note);
        log.info(
          `episode ${opened.episode.session_id} ${opened.kept ? "kept" : "opened"} (source ${d.source ?? "unknown"})`,
        );
      });
    return briefIn(opened ? inEpisode(ws, opened.episode) : ws, d, { opened, policy, gitDeadlineMs });
  },
  /** Freeze a new episode's working context, finish closes a dead taker left, recover stranded episodes. */
  async work(ws, t, policy) {
    const [{ freezeContext }, { recoverStranded }] = await Promise.all([
      import("../lifecycle/open.ts"),
      import("../lifecycle/recover.ts"),
    ]);
    if (t.fresh && ws.episode) await freezeContext(ws, ws.episode);
    await finishLeftCloses(ws, t, policy);
    await attempt(ws, who(t), "stranded episodes were not recovered", async () => {
      const recovered = await recoverStranded(ws, { limit: 3, except: ws.episodeId });
      for (const r of recovered.closed) log.info(`recovered stranded episode ${r.session_id} (interrupted)`);
    });
  },
};

const compact: Row = {
  switch: "session.checkpoint_on_compact",
  // A client whose compaction event fires on every check (not only when it compacts): a checkpoint
  // only for a compression its own transcript shows and no checkpoint answered yet; never one per turn.
  async answer(ws, d) {
    if (d.provider.hooks.compaction !== "advisory") return { work: orderOf(d) };
    const { newCompression } = await import("./compression.ts");
    const compressions = newCompression(ws, d.payload, d.providerSession);
    return compressions === undefined ? {} : { work: orderOf(d, { compressions }) };
  },
  /** The checkpoint before compaction (and any close a dead taker left); the episode's window ordinal goes up. */
  async work(ws, t, policy) {
    await finishLeftCloses(ws, t, policy);
    const episode = ws.episode;
    if (episode)
      await attempt(
        ws,
        who(t),
        "the window ordinal was not advanced",
        async () => void (await (await import("../lifecycle/window.ts")).advanceWindow(ws, episode, "compact")),
      );
    if (!policy) return;
    if (!switchOn(policy.policy, compact.switch))
      return log.info(`${compact.switch} is false: no checkpoint before compaction`);
    await attempt(ws, who(t), "no checkpoint was derived before compaction", async () => {
      log.info(
        `${t.compressions === undefined ? "compaction ahead" : `compression ${t.compressions} seen`}; checkpointed into ${await derivedCheckpoint(ws, policy, t.compressions)}`,
      );
    });
  },
};

const end: Row = {
  switch: "session.handover_on_end",
  // Done in the hook itself, never handed off: a client that exits at once (a container, `claude -p`
  // in CI) takes a detached worker with it, and the close would be lost. It takes tens of ms.
  inHook: true,
  // A very short session ends while its start's worker may still be freezing the working context
  // this close appends to; a compaction just before the end may still be writing its checkpoint.
  // Bounded by the strictest client's end budget (Codex: 3 s, providers.yaml end_budget_ms): half of
  // it at most, and never for a worker that is gone (its work is taken over at once instead).
  waits: { for: ["start", "compact"], ms: 1_500, before: "work" },
  // The claim is the end event's first trace, before its receipt: an end event that left a receipt
  // has always left the promise of its close, which any later event can keep.
  async beforeReceipt(ws, d) {
    if (!ws.episode) return;
    const { claimClose } = await import("../lifecycle/claim.ts");
    const outcome =
      d.reason !== undefined && d.provider.hooks.deliberate_reasons.includes(d.reason) ? "closed" : "interrupted";
    claimClose(ws.layer, {
      session_id: ws.episode.session_id,
      provider: d.provider.id,
      provider_session: ws.episode.provider_session,
      reason: d.reason,
      outcome,
    });
  },
  async answer(ws, d) {
    if (!ws.episode) {
      log.info(`no open episode here for ${d.provider.id} session ${d.providerSession}; nothing to close`);
      return {};
    }
    const [{ inProgress, readClaim }, { alive, me }] = await Promise.all([
      import("../lifecycle/claim.ts"),
      import("../lib/holder.ts"),
    ]);
    // End events arrive more than once: only the one that took the claim writes anything, unless the
    // claim's taker died before finishing it (then this event finishes it).
    const taken = readClaim(ws.layer, ws.episode.session_id)?.claim;
    const mine = taken !== undefined && taken.by.pid === me().pid && alive(taken.by);
    if (!taken || (!mine && inProgress(taken))) {
      log.info(`episode ${ws.episode.session_id} is already being closed; this end event adds nothing`);
      return {};
    }
    if (!mine)
      log.info(
        `the close of ${ws.episode.session_id} was claimed at ${taken.claimed_at} and never finished; this end event finishes it`,
      );
    // An advisory client fires no compaction event after its last compression: the end answers it.
    const compressions =
      d.provider.hooks.compaction === "advisory"
        ? (await import("./compression.ts")).newCompression(ws, d.payload, d.providerSession)
        : undefined;
    return { work: orderOf(d, compressions === undefined ? {} : { compressions }), claim: taken };
  },
  /** The final checkpoint, the continuation record, then the close: what the claim promised. */
  async work(ws, t, policy, held) {
    const episode = ws.episode;
    if (!episode)
      return failed(
        ws,
        who(t),
        `the episode of ${t.provider} session ${t.provider_session} was no longer open when its close was to be written`,
      );
    const [{ readClaim }, { finishClose }] = await Promise.all([
      import("../lifecycle/claim.ts"),
      import("../lifecycle/finish.ts"),
    ]);
    const claim = held?.session_id === episode.session_id ? held : readClaim(ws.layer, episode.session_id)?.claim;
    if (!claim) return failed(ws, who(t), `the close of ${episode.session_id} has no claim to finish`);
    await attempt(ws, who(t), "what reached the model was not recorded", () => noteDelivery(ws, episode, t, policy));
    if (t.compressions !== undefined && policy && switchOn(policy.policy, compact.switch)) {
      await attempt(
        ws,
        who(t),
        "no checkpoint was derived for the compression",
        async () => void (await derivedCheckpoint(ws, policy, t.compressions)),
      );
    }
    // A compaction whose receipt is in the ledger and whose checkpoint is not (its hook may still be
    // starting): one look, right before the record is written, and a bounded wait for its work.
    const waited = (await compactionLeavesCheckpoint(t.provider, policy)) ? await awaitCompaction(ws, 1_500) : 0;
    await attempt(
      ws,
      who(t),
      "the episode was not closed",
      async () => void (await finishClose(ws, claim, policy, waited === 0 ? episode : undefined)),
    );
    await finishLeftCloses(ws, t, policy);
  },
};

/** One row per session event: a new event is a row here and a row in providers.yaml. */
export const SESSION_EVENTS: Record<SessionEvent, Row> = { start, compact, end };

/** The events whose work is handed off: the names a ticket may carry. */
export const HANDED_EVENTS = Object.keys(SESSION_EVENTS) as SessionEvent[];

const who = (t: Ticket): Who => ({
  event: t.event as SessionEvent,
  providerSession: t.provider_session,
  provider: { id: t.provider },
});

/** How long a close waits for the ticket of a compaction whose receipt is in the ledger. */
const COMPACTION_APPEARS_MS = 500;
/** How far back the ledger is read for a compaction the close has not seen answered. */
const COMPACTION_LOOKBACK = 200;

/**
 * Whether the ledger's newest lines show a compaction of this client session newer than the
 * episode's newest checkpoint (its checkpoint still to come). Reads at most COMPACTION_LOOKBACK
 * lines from the end, and stops at the episode's start.
 */
function pendingCompaction(ws: Workspace, providerSession: string | undefined, episodeId: string): boolean {
  try {
    return compactionAfterCheckpoint(ws, providerSession, episodeId);
  } catch {
    // A ledger that cannot be read shows no compaction to wait for; the close says what it can.
    return false;
  }
}

function compactionAfterCheckpoint(ws: Workspace, providerSession: string | undefined, episodeId: string): boolean {
  let seen = 0;
  for (const row of newestFirst(ledgerOf(ws.layer).path)) {
    if (++seen > COMPACTION_LOOKBACK) return false;
    if (!row.ok) continue;
    const e = row.entry as Record<string, unknown>;
    if (e.event === "task.checkpoint" && e.session === episodeId) return false;
    if (e.event === "session.started" && e.session_id === episodeId) return false;
    if (e.event === "provider.event.failed" && e.provider_event === "compact") return false;
    if (
      e.event === "provider.event.received" &&
      e.provider_event === "compact" &&
      e.provider_session === (providerSession ?? "none")
    )
      return true;
  }
  return false;
}

/** Whether a compaction event of this client leaves a checkpoint to wait for: a precise one (not advisory), with compactions checkpointed at all. */
async function compactionLeavesCheckpoint(provider: string, policy: LoadedPolicy | undefined): Promise<boolean> {
  return (
    policy !== undefined &&
    switchOn(policy.policy, compact.switch) &&
    (await adapted(provider).catch(() => undefined))?.hooks.compaction !== "advisory"
  );
}

/**
 * A compaction of this episode whose receipt is in the ledger and whose checkpoint is not: wait
 * (bounded) until its work is handed off and done, so the close lists its checkpoint. Returns the wait.
 */
async function awaitCompaction(ws: Workspace, ms: number): Promise<number> {
  const episode = ws.episode;
  const started = Date.now();
  // A compaction hook of this checkout still running may not have written its receipt yet: wait for it to (bounded).
  const { processesWith } = await import("../lib/holder.ts");
  const compacting = () =>
    processesWith(["capture", "session", "--event", "compact", "--repo", ws.position.worktree]).length > 0;
  let slept = false;
  while (
    Date.now() - started < COMPACTION_APPEARS_MS &&
    compacting() &&
    !(episode && pendingCompaction(ws, episode.provider_session, episode.session_id))
  ) {
    slept = true;
    await new Promise((wake) => setTimeout(wake, 5));
  }
  // Nothing waited for: 0, so the caller knows nothing could have changed meanwhile.
  if (!episode || !pendingCompaction(ws, episode.provider_session, episode.session_id))
    return slept ? Date.now() - started + 1 : 0;
  while (
    Date.now() - started < COMPACTION_APPEARS_MS &&
    pendingCompaction(ws, episode.provider_session, episode.session_id) &&
    !tickets(ws.layer).some((t) => t.event === "compact")
  )
    await new Promise((wake) => setTimeout(wake, 5));
  return Date.now() - started + (await awaitWork(ws.layer, ["compact"], ms));
}

/**
 * Wait (bounded) for the handed-off work this event follows, then take over, here and now, any of
 * it whose worker is gone: a start or compaction whose worker a container's exit killed is done by
 * the next event instead of being waited for.
 */
async function waitFor(ws: Workspace, row: Row, when: "answer" | "work"): Promise<number> {
  if (row.waits?.before !== when) return 0;
  let waited = await awaitWork(ws.layer, row.waits.for, row.waits.ms);
  if (waited > 0) log.debug(`waited ${waited} ms for ${row.waits.for.join(", ")} work in progress`);
  for (const lost of tickets(ws.layer).filter((t) => t.lost && row.waits!.for.includes(t.event as SessionEvent))) {
    const taken = takeOver(ws.layer, lost.name, HANDED_EVENTS);
    if (!taken) continue;
    log.info(`the ${lost.event} work of ticket ${lost.name} lost its worker (${lost.why}); doing it here`);
    waited++;
    try {
      await doWork(ws, taken.ticket, false);
    } catch (err) {
      await failed(
        ws,
        who(taken.ticket),
        `the ${lost.event} work taken over from a lost worker stopped: ${(err as Error).message}`,
      );
    } finally {
      settleTaken(ws.layer, taken.claim);
    }
  }
  return waited;
}

/**
 * Do an event's work, from its ticket: the episode is the one the ticket's client session has open
 * now (a start's answer may just have opened it), and the policy is read once, here.
 */
async function doWork(ws: Workspace, t: Ticket, wait = true, claim?: Claim): Promise<void> {
  const row = SESSION_EVENTS[t.event as SessionEvent];
  const waited = wait ? await waitFor(ws, row, "work") : 0;
  // Work for an event that named no client session belongs to no episode. Work done in the hook
  // (the end, whose answer changes no episode) takes the one its workspace read for this client
  // session, unless other work ran meanwhile; any other reads it again (a start's answer may have
  // just opened or noted it).
  const held =
    row.inHook === true &&
    ws.episode !== undefined &&
    ws.episode.provider_session === t.provider_session &&
    waited === 0;
  const { attributedEpisode } = await import("../session/attribution.ts");
  const episode = held
    ? ws.episode
    : t.provider_session === undefined
      ? undefined
      : await attributedEpisode(ws.layer, ws.position, t.provider_session);
  await workIn(inEpisode(ws, episode), row, t, held ? claim : undefined);
}

/** A row's work in the workspace of the episode it is for. */
async function workIn(ws: Workspace, row: Row, t: Ticket, claim?: Claim): Promise<void> {
  await row.work(ws, t, await policyOrFail(ws, who(t)), claim);
}

/** What the hook keeps after its last git call to publish the record without git's answers. */
const PUBLISH_MS = 1_000;

/**
 * Work done in the hook (the end's close) asks git nothing after the strictest client's end budget
 * (the providers table's end_budget_ms: Codex, 3 s) less the time the record takes to publish: a
 * slow git leaves the record without the facts it was late with, and the record says which.
 */
async function boundGit(): Promise<() => void> {
  const strictest = Math.min(
    ...[...(await providers()).values()].flatMap((p) => (p.hooks ? [p.hooks.end_budget_ms] : [])),
  );
  return stopGitWithin(strictest - PUBLISH_MS);
}

/** Handle one session event; the result is what belongs on stdout (the start event's briefing). */
export async function handleSessionEvent(
  ws: Workspace,
  d: HookCall,
  mode: WorkMode = "hand-off",
): Promise<string | undefined> {
  const row = SESSION_EVENTS[d.event];
  const lift = row.inHook ? await boundGit() : undefined;
  try {
    return await sessionEvent(ws, d, row, mode);
  } finally {
    lift?.();
  }
}

async function sessionEvent(ws: Workspace, d: HookCall, row: Row, mode: WorkMode): Promise<string | undefined> {
  await row.beforeReceipt?.(ws, d).catch((err: Error) => log.warn(`${d.event}: ${err.message}`));
  try {
    await appendEvent(ws, "provider.event.received", {
      provider: d.provider.id,
      provider_event: d.event,
      provider_session: d.providerSession ?? "none",
      ...(d.source ? { source: d.source } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
    });
  } catch (err) {
    log.warn(`the receipt could not be written: ${(err as Error).message}`);
    logContextFailure(ws, `${stamp()} ${d.provider.id} ${d.event}: receipt not written: ${(err as Error).message}`);
  }
  if (d.providerSession === undefined) {
    await failed(
      ws,
      d,
      `${d.payload?.problem ?? `the payload names no client session (none of ${d.provider.hooks.keys.session.join(", ")})`}; no episode was ${d.event === "start" ? "opened" : d.event === "end" ? "closed" : "written to"}`,
    );
  }
  await waitFor(ws, row, "answer");
  const answer = await row.answer(ws, d);
  if (answer.work && !row.inHook) {
    // A worker would run git status again for the same tree: hand it the answer this hook has, if any.
    const { handOnStatus } = await import("../repo/prefetch.ts");
    const gitStatus = await handOnStatus(ws.position);
    if (handOff(ws, { ...answer.work, git_status: gitStatus }, mode)) return answer.stdout;
    if (gitStatus)
      for (const f of [gitStatus, `${gitStatus}.rc`]) rmSync(join(ws.position.worktree, f), { force: true });
  }
  // Work done in the hook, or no worker could start: done here, from the same ticket a worker would read.
  if (answer.work)
    await doWork(
      ws,
      { schema: TICKET_SCHEMA, ...answer.work, handed_at: stamp(), by: process.pid },
      true,
      answer.claim,
    );
  return answer.stdout;
}

/** `capture work`: do the work a hook handed off, from its ticket alone, then give the ticket back (whatever happened). */
export async function doHandedWork(ws: Workspace, name: string): Promise<void> {
  const read = readTicket(ws.layer, name, HANDED_EVENTS);
  if ("problem" in read) return log.warn(`capture work: ${read.problem}; nothing done`);
  if (read.ticket.git_status) (await import("../repo/prefetch.ts")).startStatus(ws.position, read.ticket.git_status);
  try {
    await doWork(ws, read.ticket);
  } catch (err) {
    await failed(ws, who(read.ticket), `the handed-off work stopped: ${(err as Error).message}`);
  } finally {
    settle(ws.layer, name);
  }
}

/**
 * A close some end event claimed and whose taker died before writing it: any later event of the
 * checkout keeps that promise. The prompt event calls this after its own work: it hands each such
 * close to a worker (or, when none can start, finishes it itself). Costs one listing of the claims
 * folder when there is none.
 */
export async function keepClaimedCloses(ws: Workspace, mode: WorkMode = "hand-off"): Promise<void> {
  const { inProgress, readClaims } = await import("../lifecycle/claim.ts");
  for (const { claim } of readClaims(ws.layer)) {
    if (!claim || inProgress(claim) || claim.provider === "none") continue;
    const order: Order = {
      event: "end",
      provider: claim.provider,
      provider_session: claim.provider_session === "none" ? undefined : claim.provider_session,
      reason: claim.reason,
    };
    log.info(`the close of ${claim.session_id} was claimed at ${claim.claimed_at} and never finished; finishing it`);
    if (!handOff(ws, order, mode))
      await doWork(ws, { schema: TICKET_SCHEMA, ...order, handed_at: stamp(), by: process.pid });
  }
}
