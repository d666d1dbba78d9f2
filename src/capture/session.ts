/**
 * `capture session --provider P --event start|compact|end`: what the client's hooks run.
 *
 * The receipt (`provider.event.received`) is written before anything can fail, and a failure is
 * recorded (`provider.event.failed` with the reason) rather than raised: a hook must return
 * success to its client, and returning success is not the same as claiming the work was done.
 * Only the start event writes to stdout (the briefing); nothing here exits 2.
 *
 * The client waits for the hook, so each event does here only what the client needs: start
 * opens the episode and prints the briefing; end claims the close (exactly once); compact nothing.
 * The derived records and the close itself are handed to a detached worker (`capture work`, see
 * handoff.ts), or done here where no worker can be started.
 */
import { isoStamp, now } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import type { Here } from "../layer/here.ts";
import { appendEvent } from "../ledger/store.ts";
import { loadPolicy, type LoadedPolicy } from "../policy/index.ts";
import { logContextFailure } from "../session/context-log.ts";
import { attributedEpisode } from "../session/attribution.ts";
import type { Delivery } from "./delivery.ts";
import { awaitWork, handOff, settle, type HandedEvent } from "./handoff.ts";

/** Record that some work this event asked for did not complete. Never throws. */
async function failed(here: Here, d: Delivery, reason: string): Promise<void> {
  log.warn(`capture session (${d.event}): ${reason}`);
  logContextFailure(here, `${isoStamp(now())} ${d.provider.id} ${d.event} ${d.providerSession ?? "-"}: ${reason}`);
  try {
    await appendEvent(here, "provider.event.failed", { provider: d.provider.id, provider_event: d.event, reason });
  } catch (err) {
    log.warn(`the failure could not be recorded in the ledger either: ${(err as Error).message}`);
  }
}

async function attempt(here: Here, d: Delivery, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    await failed(here, d, `${what}: ${(err as Error).message}`);
  }
}

async function policyOrFail(here: Here, d: Delivery): Promise<LoadedPolicy | undefined> {
  try {
    return await loadPolicy(here.layer);
  } catch (err) {
    await failed(here, d, `the policy could not be read (${(err as Error).message.split("\n")[0]})`);
    return undefined;
  }
}

/** Each event loads only the modules its own work needs: a hook pays for what it does. */
async function derivedCheckpoint(here: Here, policy: LoadedPolicy): Promise<string> {
  const [{ gatherFacts }, { CHECKPOINT_NEEDS, deriveCheckpoint }, { writeRecord }, { RECORD_KINDS }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/derived.ts"),
    import("../records/write.ts"),
    import("../records/kinds.ts"),
  ]);
  const body = deriveCheckpoint(await gatherFacts(here, CHECKPOINT_NEEDS));
  return (await writeRecord(here, RECORD_KINDS.checkpoint, body, policy, { how: "derived" })).relativePath;
}

/** A handler returns what the client should read on stdout (only the start event has anything). */
type Handler = (here: Here, d: Delivery) => Promise<string | undefined>;

/** How long a start event waits for a close still being written in its checkout (after /clear). */
const CLOSE_WAIT_MS = 2_000;
/** How long a close waits for its episode's start work (the worker is not what the client waits for). */
const START_WAIT_MS = 5_000;

const start: Handler = async (here, d) => {
  const waited = await awaitWork(here.layer, ["end"], CLOSE_WAIT_MS);
  if (waited > 0) log.debug(`waited ${waited} ms for a close in progress`);
  const [{ openEpisode }, { gatherFacts }, { BRIEFING_NEEDS, briefing: briefingOf }] = await Promise.all([import("../session/open.ts"), import("../facts/gather.ts"), import("../views/briefing.ts")]);
  let opened: Awaited<ReturnType<typeof openEpisode>> | undefined;
  await attempt(here, d, "the episode did not open", async () => {
    opened = await openEpisode(here, { ifOpen: "keep", openedBy: "hook", provider: d.provider.id, providerSession: d.providerSession, snapshot: "later" });
    log.info(`episode ${opened.episode.session_id} ${opened.kept ? "kept" : "opened"} (source ${d.source ?? "unknown"})`);
  });
  const stamped = opened ? { ...here, session: opened.episode.session_id } : here;
  const fresh = opened !== undefined && !opened.kept;
  // The client reads only the briefing: the new episode's working context and the recovery of
  // stranded episodes go to the worker (or are done here after the briefing is composed).
  const policy = await policyOrFail(stamped, d);
  let briefing: string | undefined;
  if (policy && policy.policy.session?.briefing_on_start !== false) {
    await attempt(stamped, d, "the briefing was not composed", async () => {
      const facts = await gatherFacts(stamped, BRIEFING_NEEDS, opened ? { session_id: opened.episode.session_id, kept: opened.kept } : undefined);
      briefing = briefingOf(facts).lines.join("\n");
    });
  }
  // Nothing left to do for a resumed episode when no other episode is old enough to be stranded.
  const { strandedCandidates } = await import("../session/stranded.ts");
  if (!fresh && (await strandedCandidates(stamped, policy, opened?.episode.session_id).catch(() => 1)) === 0) return briefing;
  if (!handOff(stamped, { ...d, event: "start" }, fresh ? ["--fresh-episode"] : [])) await startWork(stamped, d, fresh);
  return briefing;
};

/** A start event's work besides the briefing: freeze a new episode's working context, recover stranded ones. */
async function startWork(here: Here, d: Delivery, fresh: boolean): Promise<void> {
  const [{ freezeContext }, { recoverStranded }] = await Promise.all([import("../session/open.ts"), import("../session/recover.ts")]);
  // `here` was located for this delivery's client session: its episode, if open, is here.session.
  if (fresh && here.session) {
    const episode = await attributedEpisode(here.layer, here.position, d.providerSession);
    if (episode) await freezeContext(here, episode);
  }
  await attempt(here, d, "stranded episodes were not recovered", async () => {
    const recovered = await recoverStranded(here, { limit: 3, except: here.session });
    for (const r of recovered.closed) log.info(`recovered stranded episode ${r.session_id} (interrupted)`);
  });
}

/** The checkpoint before compaction. */
async function compactWork(here: Here, d: Delivery): Promise<void> {
  const policy = await policyOrFail(here, d);
  if (!policy) return;
  if (policy.policy.session?.checkpoint_on_compact === false) {
    log.info("session.checkpoint_on_compact is false: no checkpoint before compaction");
    return;
  }
  await attempt(here, d, "no checkpoint was derived before compaction", async () => {
    log.info(`compaction ahead; checkpointed into ${await derivedCheckpoint(here, policy)}`);
  });
}

const compact: Handler = async (here, d) => {
  if (!handOff(here, { ...d, event: "compact" })) await compactWork(here, d);
  return undefined;
};

/** The final checkpoint, the continuation record, then the close: after the claim was taken. */
async function endWork(here: Here & { session: string }, d: Delivery): Promise<void> {
  // A very short session ends while its start's worker may still be freezing the working context
  // this close appends to.
  await awaitWork(here.layer, ["start"], START_WAIT_MS);
  const outcome = d.reason !== undefined && d.provider.hooks.deliberate_reasons.includes(d.reason) ? "closed" : "interrupted";
  const [{ closeEpisode }, { gatherFacts, withWritten }, { CHECKPOINT_NEEDS, HANDOVER_NEEDS, deriveCheckpoint, deriveHandover }, { requiredSections, writeRecord }, { RECORD_KINDS }] = await Promise.all([
    import("../session/close.ts"),
    import("../facts/gather.ts"),
    import("../views/derived.ts"),
    import("../records/write.ts"),
    import("../records/kinds.ts"),
  ]);
  const policy = await policyOrFail(here, d);
  // One gathering serves both derived records; the handover quotes the checkpoint just written.
  let facts = policy ? await gatherFacts(here, [...CHECKPOINT_NEEDS, ...HANDOVER_NEEDS]).catch(async (err: Error) => void (await failed(here, d, `nothing could be derived: ${err.message}`))) : undefined;
  if (policy && facts && policy.policy.session?.checkpoint_on_compact !== false) {
    await attempt(here, d, "no closing checkpoint was derived", async () => {
      const written = await writeRecord(here, RECORD_KINDS.checkpoint, deriveCheckpoint(facts!), policy, { how: "derived" });
      facts = await withWritten(facts!, "checkpoint", written.record);
    });
  }
  if (policy && facts && policy.policy.session?.handover_on_end !== false) {
    await attempt(here, d, "no continuation record was derived", async () => {
      // The continuation record attaches to the active task and leaves it active: a task outlives
      // client sessions until \`finish\` (or \`handover --close\`) ends it.
      const written = await writeRecord(here, RECORD_KINDS.handover, deriveHandover(facts!, requiredSections(policy)), policy, { how: "derived", noTask: facts!.task === undefined });
      log.info(`continuation written to ${written.relativePath}`);
    });
  }
  await attempt(here, d, "the episode was not closed", async () => {
    const closed = await closeEpisode(here, { outcome, providerSession: d.providerSession, reason: d.reason, policy, claimed: true });
    if (closed.status === "closed") log.info(`episode closed (${outcome}, reason ${d.reason ?? "none"}) into ${closed.path}${closed.committed ? ` (committed ${closed.committed.slice(0, 7)})` : ""}`);
  });
}

/** `here` was located for the delivery's client session, so its episode (if open here) is here.session. */
function withEpisode(here: Here): (Here & { session: string }) | undefined {
  return here.session === undefined ? undefined : (here as Here & { session: string });
}

const end: Handler = async (here, d) => {
  const mine = withEpisode(here);
  if (!mine) {
    log.info(`no open episode here for ${d.provider.id} session ${d.providerSession}; nothing to close`);
    return undefined;
  }
  const { claimClose } = await import("../session/claim.ts");
  // End events arrive more than once: only the one that claims the close writes anything.
  if (!claimClose(mine, mine.session)) {
    log.info(`episode ${mine.session} is already being closed; this end event adds nothing`);
    return undefined;
  }
  if (!handOff(mine, { ...d, event: "end" })) await endWork(mine, d);
  return undefined;
};

/** One handler per session event: a new event is a row here and a row in providers.yaml. */
export const SESSION_EVENTS: Record<Delivery["event"], Handler> = { start, compact, end };

/** Handle one session event; the result is what belongs on stdout (the start event's briefing). */
export async function handleSessionEvent(here: Here, d: Delivery): Promise<string | undefined> {
  if (d.payload.problem) logContextFailure(here, `${isoStamp(now())} ${d.provider.id} ${d.event}: ${d.payload.problem}; the boundary was drawn without it`);
  try {
    await appendEvent(here, "provider.event.received", {
      provider: d.provider.id,
      provider_event: d.event,
      provider_session: d.providerSession ?? "none",
      ...(d.source ? { source: d.source } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
    });
  } catch (err) {
    log.warn(`the receipt could not be written: ${(err as Error).message}`);
    logContextFailure(here, `${isoStamp(now())} ${d.provider.id} ${d.event}: receipt not written: ${(err as Error).message}`);
  }
  return SESSION_EVENTS[d.event](here, d);
}

/** The work of each handed-off event, as `capture work` runs it. */
const HANDED_WORK: Record<HandedEvent, (here: Here, d: Delivery, fresh: boolean) => Promise<void>> = {
  start: startWork,
  compact: compactWork,
  end: async (here, d) => {
    const mine = withEpisode(here);
    if (mine) await endWork(mine, d);
    else await failed(here, d, `the episode of ${d.provider.id} session ${d.providerSession} was no longer open when its close was to be written`);
  },
};

/** Do the work a hook handed off, then give its ticket back (whatever happened). */
export async function doHandedWork(here: Here, d: Delivery & { event: HandedEvent }, ticket: string, fresh = false): Promise<void> {
  try {
    await HANDED_WORK[d.event](here, d, fresh);
  } catch (err) {
    await failed(here, d, `the handed-off work stopped: ${(err as Error).message}`);
  } finally {
    settle(here.layer, ticket);
  }
}
