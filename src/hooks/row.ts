/** What every session event's row is made of, and the helpers their work shares. */
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

export const SWITCHES = {
  start: "session.briefing_on_start",
  compact: "session.checkpoint_on_compact",
  end: "session.handover_on_end",
  // A stop at an API error loses the window as a compaction does: the same switch derives its checkpoint.
  limit: "session.checkpoint_on_compact",
} as const satisfies Record<SessionEvent, Exclude<SwitchKey, CredentialKey>>;

export async function failed(
  ws: Workspace,
  d: Pick<HookCall, "event" | "providerSession"> & { provider: { id: string } },
  text: string,
): Promise<void> {
  // A reason may quote the payload: redacted.
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

// `claim`: the close claim the answer read, for work done in the same hook.
export type Answer = { stdout?: string; work?: Order; claim?: Claim };

export type Row = {
  answer(ws: Workspace, d: HookCall): Promise<Answer>;
  work(ws: Workspace, t: Ticket, policy: LoadedPolicy | undefined, claim?: Claim): Promise<void>;
  waits?: { for: readonly SessionEvent[]; ms: number; before: "answer" | "work" };
  inHook?: boolean;
  beforeReceipt?(ws: Workspace, d: HookCall): Promise<void>;
  /** Start and compact read theirs here; the end's is read by the close it shares with `recover`. */
  switch: Exclude<SwitchKey, CredentialKey>;
};

export const orderOf = (d: HookCall, extra: Partial<Order> = {}): Order => ({
  event: d.event,
  provider: d.provider.id,
  provider_session: d.providerSession,
  source: d.source,
  reason: d.reason,
  ...extra,
});

// Each event loads only the modules its own work needs.
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
