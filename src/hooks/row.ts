/**
 * What every session event's row is made of (hooks/session.ts drives them): the answer the client
 * waits for, the work it does not read, the switch that turns the event's product off; and the
 * helpers each row's work shares (a failure recorded, never raised; the order a worker is handed).
 */
import { stamp } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import type { CredentialKey, LoadedPolicy, SwitchKey } from "../policy/index.ts";
import { logContextFailure } from "../lifecycle/context-log.ts";
import { redactShapes } from "../lib/redact.ts";
import type { Claim } from "../lifecycle/claim.ts";
import type { HookCall, SessionEvent } from "./delivery.ts";
import type { Order, Ticket } from "./handoff.ts";

/** The switch that turns each event's product off: the briefing, the checkpoint, the continuation record. */
export const SWITCHES = {
  start: "session.briefing_on_start",
  compact: "session.checkpoint_on_compact",
  end: "session.handover_on_end",
} as const satisfies Record<SessionEvent, Exclude<SwitchKey, CredentialKey>>;

/** Record that some work this event asked for did not complete. Never throws. */
export async function failed(
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

export type Who = Parameters<typeof failed>[1];

export async function attempt(ws: Workspace, d: Who, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    await failed(ws, d, `${what}: ${(err as Error).message}`);
  }
}

export async function policyOrFail(ws: Workspace, d: Who): Promise<LoadedPolicy | undefined> {
  try {
    return await ws.policy();
  } catch (err) {
    await failed(ws, d, `the policy could not be read (${(err as Error).message.split("\n")[0]})`);
    return undefined;
  }
}

/** What the client reads on stdout, and the work left for after the answer (none: nothing to hand off). */
/** `claim`: the close claim the answer read, for work done in the same hook (never in a ticket). */
export type Answer = { stdout?: string; work?: Order; claim?: Claim };

export type Row = {
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

/** The order a delivery leaves for its work: what the worker needs, nothing else. */
export const orderOf = (d: HookCall, extra: Partial<Order> = {}): Order => ({
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
export async function finishLeftCloses(ws: Workspace, t: Ticket, policy: LoadedPolicy | undefined): Promise<void> {
  const { readClaims } = await import("../lifecycle/claim.ts");
  if (readClaims(ws.layer).length === 0) return;
  const { finishUnfinished } = await import("../lifecycle/finish.ts");
  await attempt(ws, who(t), "unfinished closes were not finished", async () => {
    for (const f of await finishUnfinished(ws, policy)) log.info(`finished the close of ${f.episodeId} (${f.result})`);
  });
}

export const who = (t: Ticket): Who => ({
  event: t.event as SessionEvent,
  providerSession: t.provider_session,
  provider: { id: t.provider },
});
