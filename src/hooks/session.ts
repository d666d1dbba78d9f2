/**
 * `capture session --provider P --event start|compact|end`, driven by SESSION_EVENTS. The receipt is written before
 * anything can fail, and a failure is recorded (`provider.event.failed`) rather than raised: a hook returns success
 * to its client, which is not a claim that the work was done. Only start writes to stdout; nothing exits 2. Each row
 * (row.ts) names what the client waits for, the work it does not read, what that work waits for, and the switch that
 * turns it off.
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
import { limit } from "./limit.ts";

const compact: Row = {
  switch: SWITCHES.compact,
  // A client whose compaction event fires on every check: a checkpoint only for a compression its transcript shows
  // and none answered yet.
  async answer(ws, d) {
    if (d.provider.hooks.compaction === "boot") {
      // The plugin replaces the client's summary with this answer: the fresh window's boot (its own checkpoint).
      const { windowAnswer } = await import("./window.ts");
      if ((await windowAnswer(ws, "status", undefined, d.provider)).fresh_window.on) {
        const booted = await windowAnswer(ws, "boot", "auto", d.provider);
        if (booted.ok && booted.boot) return { stdout: booted.boot };
      }
    }
    if (d.provider.hooks.compaction !== "advisory") return { work: orderOf(d) };
    const { newCompression } = await import("./compression.ts");
    const compressions = newCompression(ws, d.payload, d.providerSession);
    return compressions === undefined ? {} : { work: orderOf(d, { compressions }) };
  },
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
        `${t.compressions === undefined ? "compaction ahead" : `compression ${t.compressions} seen`}; ` +
          `checkpointed into ${await derivedCheckpoint(ws, policy, t.compressions)}`,
      );
    });
  },
};

export const SESSION_EVENTS: Record<SessionEvent, Row> = { start, compact, end, limit };

export const HANDED_EVENTS = Object.keys(SESSION_EVENTS) as SessionEvent[];

/**
 * Wait (bounded) for the handed-off work this event follows, then do here any whose worker is gone (a container's
 * exit kills workers).
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

async function doWork(ws: Workspace, t: Ticket, wait = true, claim?: Claim): Promise<void> {
  const row = SESSION_EVENTS[t.event as SessionEvent];
  const waited = wait ? await waitFor(ws, row, "work") : 0;
  // Work done in the hook (the end) takes the episode its workspace read, unless other work ran meanwhile; other work
  // reads it again (a start may just have opened it).
  const held =
    row.inHook === true &&
    ws.episode !== undefined &&
    ws.episode.provider_session === t.provider_session &&
    waited === 0;
  const { attributedEpisode } = await import("../session/attribution.ts");
  const episode = held ? ws.episode : await attributedEpisode(ws.layer, ws.position, t.provider_session, true);
  await workIn(inEpisode(ws, episode), row, t, held ? claim : undefined);
}

async function workIn(ws: Workspace, row: Row, t: Ticket, claim?: Claim): Promise<void> {
  await row.work(ws, t, await policyOrFail(ws, who(t)), claim);
}

const PUBLISH_MS = 1_000;

/**
 * Work done in the hook asks git nothing after the strictest client's end budget (Codex, 3 s) less PUBLISH_MS: a slow
 * git leaves the record without those facts, and it says which.
 */
async function boundGit(): Promise<() => void> {
  const strictest = Math.min(
    ...[...(await providers()).values()].flatMap((p) => (p.hooks ? [p.hooks.end_budget_ms] : [])),
  );
  return stopGitWithin(strictest - PUBLISH_MS);
}

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
      `${d.payload?.problem ?? `the payload names no client session (none of ${d.provider.hooks.keys.session.join(", ")})`}; ` +
        `no episode was ${d.event === "start" ? "opened" : d.event === "end" ? "closed" : "written to"}`,
    );
  }
  await waitFor(ws, row, "answer");
  const answer = await row.answer(ws, d);
  if (answer.work && !row.inHook) {
    // A worker would run git status again: hand it this hook's answer.
    const { handOnStatus } = await import("../repo/prefetch.ts");
    const gitStatus = await handOnStatus(ws.position);
    if (handOff(ws, { ...answer.work, git_status: gitStatus }, mode)) return answer.stdout;
    if (gitStatus)
      for (const f of [gitStatus, `${gitStatus}.rc`]) rmSync(join(ws.position.worktree, f), { force: true });
  }
  if (answer.work)
    await doWork(
      ws,
      { schema: TICKET_SCHEMA, ...answer.work, handed_at: stamp(), by: process.pid },
      true,
      answer.claim,
    );
  return answer.stdout;
}

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
 * A close an end event claimed and whose taker died: any later event keeps that promise. The prompt event hands each
 * to a worker; one listing of the claims folder when there is none.
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
