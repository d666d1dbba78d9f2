/**
 * The end event: the claim before the receipt, then, in the hook itself, what reached the model, the last checkpoint,
 * a bounded wait for a compaction still being written, and the close.
 */
import { log } from "../lib/log.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { appendEvent, ledgerOf } from "../ledger/store.ts";
import type { Entry } from "../ledger/line.ts";
import { episodeEntries } from "../ledger/read.ts";
import type { OpenEpisode } from "../session/store.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { redactShapes } from "../lib/redact.ts";
import { adapted } from "../providers/index.ts";
import { awaitWork, tickets, type Ticket } from "./handoff.ts";
import { attempt, derivedCheckpoint, failed, finishLeftCloses, orderOf, SWITCHES, who, type Row } from "./row.ts";

/** What the client's transcript shows of the briefing it was handed: inline, collapsed, missing, or not provable. */
async function noteDelivery(
  ws: Workspace,
  episode: NonNullable<Workspace["episode"]>,
  t: Ticket,
  policy: LoadedPolicy | undefined,
): Promise<void> {
  if (!policy || !switchOn(policy.policy, SWITCHES.start)) return;
  const [{ deliveryAtEnd, PENDING }, provider] = await Promise.all([
    import("../transcript/delivery.ts"),
    adapted(t.provider),
  ]);
  const verdict = deliveryAtEnd(provider.id, episode.transcript_path, provider.hooks.events.start.shim);
  await appendEvent(ws, "session.delivery", {
    provider: provider.id,
    provider_session: episode.provider_session ?? "none",
    delivery: verdict.state,
    cause: redactShapes(verdict.cause),
    ...(verdict.state === PENDING ? { transcript_path: episode.transcript_path } : {}),
  });
  if (verdict.state === "collapsed" || verdict.state === "missing")
    log.warn(`the briefing of ${episode.session_id} was ${verdict.state}: ${verdict.cause}`);
}

export const end: Row = {
  switch: SWITCHES.end,
  // Never handed off: a client that exits at once (a container, `claude -p` in CI) takes a detached worker with it.
  // Tens of ms.
  inHook: true,
  // A short session may end while its start still freezes the context this close appends to, or a compaction still
  // writes its checkpoint: half the strictest end budget (Codex, 3 s) at most.
  waits: { for: ["start", "compact"], ms: 1_500, before: "work" },
  // The claim comes before the receipt: an end that left a receipt always left the promise of its close.
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
    // End events arrive more than once: only the claim's taker writes, unless it died first.
    const taken = readClaim(ws.layer, ws.episode.session_id)?.claim;
    const mine = taken !== undefined && taken.by.pid === me().pid && alive(taken.by);
    if (!taken || (!mine && inProgress(taken))) {
      log.info(`episode ${ws.episode.session_id} is already being closed; this end event adds nothing`);
      return {};
    }
    if (!mine)
      log.info(
        `the close of ${ws.episode.session_id} was claimed at ${taken.claimed_at} and never ` +
          `finished; this end event finishes it`,
      );
    // An advisory client fires no compaction event after its last compression: the end answers it.
    const compressions =
      d.provider.hooks.compaction === "advisory"
        ? (await import("./compression.ts")).newCompression(ws, d.payload, d.providerSession)
        : undefined;
    return { work: orderOf(d, compressions === undefined ? {} : { compressions }), claim: taken };
  },
  async work(ws, t, policy, held) {
    const episode = ws.episode;
    if (!episode)
      return failed(
        ws,
        who(t),
        `the episode of ${t.provider} session ${t.provider_session} was no longer open when its ` +
          `close was to be written`,
      );
    const [{ readClaim }, { finishClose }] = await Promise.all([
      import("../lifecycle/claim.ts"),
      import("../lifecycle/finish.ts"),
    ]);
    const claim = held?.session_id === episode.session_id ? held : readClaim(ws.layer, episode.session_id)?.claim;
    if (!claim) return failed(ws, who(t), `the close of ${episode.session_id} has no claim to finish`);
    await attempt(ws, who(t), "what reached the model was not recorded", () => noteDelivery(ws, episode, t, policy));
    if (t.compressions !== undefined && policy && switchOn(policy.policy, SWITCHES.compact)) {
      await attempt(
        ws,
        who(t),
        "no checkpoint was derived for the compression",
        async () => void (await derivedCheckpoint(ws, policy, t.compressions)),
      );
    }
    // A compaction whose checkpoint is still to come, answered from the lines the close gathers.
    const settle = (await compactionLeavesCheckpoint(t.provider, policy))
      ? (entries: readonly Entry[] | undefined) => awaitCompaction(ws, 1_500, entries)
      : undefined;
    await attempt(
      ws,
      who(t),
      "the episode was not closed",
      async () => void (await finishClose(ws, claim, policy, episode, settle)),
    );
    await finishLeftCloses(ws, t, policy);
  },
};

const COMPACTION_APPEARS_MS = 500;
/**
 * Whether the episode's lines show a compaction of this client session newer than its newest checkpoint; `entries`
 * when already read.
 */
function pendingCompaction(ws: Workspace, episode: OpenEpisode, entries?: readonly Entry[]): boolean {
  let lines: readonly Entry[];
  try {
    lines = entries ?? episodeEntries(ledgerOf(ws.layer).path, episode.session_id);
  } catch {
    return false;
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const e = lines[i] as Record<string, unknown>;
    if (e.event === "task.checkpoint") return false;
    if (e.event === "provider.event.failed" && e.provider_event === "compact") return false;
    const ours = e.provider_session === (episode.provider_session ?? "none");
    if (e.event === "provider.event.received" && e.provider_event === "compact" && ours) return true;
  }
  return false;
}

async function compactionLeavesCheckpoint(provider: string, policy: LoadedPolicy | undefined): Promise<boolean> {
  return (
    policy !== undefined &&
    switchOn(policy.policy, SWITCHES.compact) &&
    (await adapted(provider).catch(() => undefined))?.hooks.compaction !== "advisory"
  );
}

/** Wait (bounded) for a pending compaction's work, so the close lists its checkpoint; returns the wait. */
async function awaitCompaction(ws: Workspace, ms: number, entries?: readonly Entry[]): Promise<number> {
  const episode = ws.episode;
  const started = Date.now();
  const { processesWith } = await import("../lib/holder.ts");
  const compacting = () =>
    processesWith(["capture", "session", "--event", "compact", "--repo", ws.position.worktree]).length > 0;
  let slept = false;
  const pending = () => episode !== undefined && pendingCompaction(ws, episode, slept ? undefined : entries);
  while (Date.now() - started < COMPACTION_APPEARS_MS && compacting() && !pending()) {
    slept = true;
    await new Promise((wake) => setTimeout(wake, 5));
  }
  // Nothing waited for: 0, so the caller knows nothing changed.
  if (!pending()) return slept ? Date.now() - started + 1 : 0;
  slept = true;
  while (
    Date.now() - started < COMPACTION_APPEARS_MS &&
    pending() &&
    !tickets(ws.layer).some((t) => t.event === "compact")
  )
    await new Promise((wake) => setTimeout(wake, 5));
  return Date.now() - started + (await awaitWork(ws.layer, ["compact"], ms));
}
