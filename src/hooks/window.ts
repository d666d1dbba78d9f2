/**
 * `capture window`: what the Claude Code mod asks the binary about the client's context window.
 *
 * - `status`: whether the fresh window is on here (asked by the tracked policy and granted by the
 *   person's local consent file), what `/compact` does meanwhile, and the episode's window ordinal
 *   (so a resumed session goes on counting). Writes nothing.
 * - `boot`: the mod is about to replace a compaction. The settings-level compaction hook will not
 *   run, so this writes what it would have (the derived checkpoint, inside the episode), moves the
 *   episode to its next window, and answers the boot the new window starts from.
 *
 * Both answer one JSON document; a refusal is `ok: false` with the reason, and the mod lets the
 * client's own summary run.
 */
import { adapted, budgetFor } from "../providers/index.ts";
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { windowOf } from "../session/store.ts";
import { logContextFailure } from "../lifecycle/context-log.ts";
import { printable } from "../lib/printable.ts";

export type WindowAction = "status" | "boot";

export type FreshWindowGrant = import("../lifecycle/consent.ts").Grant;

export type WindowAnswer = {
  action: WindowAction;
  ok: boolean;
  why?: string;
  fresh_window: FreshWindowGrant;
  manual: "veto" | "summary";
  episode: string | null;
  window: number | null;
  window_id: string | null;
  transcript: boolean;
  checkpoint?: string | null;
  boot?: string;
};

/** Whether the person granted the fresh window in this checkout (the policy asks, the local consent file grants), and why not when not. */
export async function freshWindowGrant(ws: Workspace, policy: LoadedPolicy): Promise<FreshWindowGrant> {
  const { consentHere } = await import("../lifecycle/consent.ts");
  return consentHere(ws.position, policy, "session.fresh_window", { needsAsk: true });
}

export async function windowAnswer(
  ws: Workspace,
  action: WindowAction,
  trigger: string | undefined,
): Promise<WindowAnswer> {
  const policy = await ws.policy();
  const grant = await freshWindowGrant(ws, policy);
  const episode = ws.episode;
  const { windowId } = await import("../lifecycle/window.ts");
  const base: WindowAnswer = {
    action,
    ok: true,
    fresh_window: grant,
    manual: policy.policy.session?.fresh_window_manual ?? "veto",
    episode: episode?.session_id ?? null,
    window: episode ? windowOf(episode) : null,
    window_id: episode ? windowId(episode) : null,
    transcript: episode?.transcript_path !== undefined,
  };
  if (action === "status") return base;
  const refuse = (why: string): WindowAnswer => {
    log.warn(`capture window: ${why}; the client's own summary runs`);
    logContextFailure(ws, `${stamp()} capture window boot: ${why}`);
    return { ...base, ok: false, why };
  };
  if (!grant.on) return refuse(`the fresh window is off (${grant.why})`);
  if (!episode)
    return refuse(
      "no open episode belongs to this client session (the start hook did not run, or the session was closed)",
    );
  let checkpoint: string | null = null;
  if (switchOn(policy.policy, "session.checkpoint_on_compact")) {
    const { derivedCheckpoint } = await import("./row.ts");
    checkpoint = await derivedCheckpoint(ws, policy);
    log.info(`fresh window: checkpointed into ${checkpoint}`);
  }
  const { advanceWindow } = await import("../lifecycle/window.ts");
  const ordinal = await advanceWindow(ws, episode, "fresh_window", trigger);
  if (ordinal === undefined) return refuse(`episode ${episode.session_id} closed while its window was being replaced`);
  const [{ gatherFacts }, { BOOT_NEEDS, boot }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/boot.ts"),
  ]);
  const facts = await gatherFacts(ws, BOOT_NEEDS, { episode: { session_id: episode.session_id, kept: true } });
  const id = windowId(episode, ordinal);
  // The model reads the boot as the briefing is read: a record's control characters shown as `\uXXXX`, never sent raw.
  return {
    ...base,
    window: ordinal,
    window_id: id,
    checkpoint,
    boot: printable(
      boot(
        facts,
        { id, ordinal, trigger },
        budgetFor((await adapted("claude-code")).hooks, "boot", policy.policy),
      ).join("\n"),
    ),
  };
}
