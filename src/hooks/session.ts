/**
 * `capture session --provider P --event start|compact|end`: what the client's hooks run, driven by
 * one table of events (SESSION_EVENTS below).
 *
 * The receipt (`provider.event.received`) is written before anything can fail, and a failure is
 * recorded (`provider.event.failed` with the reason) rather than raised: a hook must return
 * success to its client, and returning success is not the same as claiming the work was done.
 * Only the start event writes to stdout (the briefing); nothing here exits 2.
 *
 * Each event row (hooks/row.ts: start.ts, end.ts, and the compaction's below) says what the client
 * waits for (its answer), the work the client does not read (handed to a detached worker through a
 * ticket, or done here when no worker can start), which handed-off work it waits for first, and the
 * policy switch that turns its work off. This module drives them.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { stamp } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { switchOn } from "../policy/index.ts";
import { logContextFailure } from "../lifecycle/context-log.ts";
import { providers } from "../providers/index.ts";
import { stopGitWithin } from "../repo/git.ts";
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
import {
  attempt,
  derivedCheckpoint,
  failed,
  finishLeftCloses,
  orderOf,
  policyOrFail,
  SWITCHES,
  who,
  type Row,
} from "./row.ts";
import { start } from "./start.ts";
import { end } from "./end.ts";

const compact: Row = {
  switch: SWITCHES.compact,
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
    if (!switchOn(policy.policy, SWITCHES.compact))
      return log.info(`${SWITCHES.compact} is false: no checkpoint before compaction`);
    await attempt(ws, who(t), "no checkpoint was derived before compaction", async () => {
      log.info(
        `${t.compressions === undefined ? "compaction ahead" : `compression ${t.compressions} seen`}; checkpointed into ${await derivedCheckpoint(ws, policy, t.compressions)}`,
      );
    });
  },
};

/** One row per session event: a new event is a row here and a row in providers.yaml. */
export const SESSION_EVENTS: Record<SessionEvent, Row> = { start, compact, end };

/** The events whose work is handed off: the names a ticket may carry. */
export const HANDED_EVENTS = Object.keys(SESSION_EVENTS) as SessionEvent[];

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
