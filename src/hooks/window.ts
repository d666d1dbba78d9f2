/**
 * `capture window`, asked by the Claude Code mod. `status`: whether the fresh window is on here (asked by the policy,
 * granted locally), what `/compact` does, and the window ordinal. `boot`: the mod is replacing a compaction, so this
 * writes what the compaction hook would have, moves the episode to its next window and answers the boot. A refusal is
 * `ok: false` and the client's own summary runs.
 */
import { adapted, budgetFor, type Hooks, type Provider } from "../providers/index.ts";
import { log } from "../lib/log.ts";
import { stamp } from "../lib/clock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { windowOf, type OpenEpisode } from "../session/store.ts";
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

export async function freshWindowGrant(ws: Workspace, policy: LoadedPolicy): Promise<FreshWindowGrant> {
  const { consentHere } = await import("../lifecycle/consent.ts");
  return consentHere(ws.position, policy, "session.fresh_window", { needsAsk: true });
}

export async function windowAnswer(
  ws: Workspace,
  action: WindowAction,
  trigger: string | undefined,
  provider?: Provider & { hooks: Hooks },
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
  const id = windowId(episode, ordinal);
  const text = await bootText(
    ws,
    episode,
    policy,
    { id, ordinal, trigger },
    provider ?? (await adapted("claude-code")),
  );
  return { ...base, window: ordinal, window_id: id, checkpoint, boot: text };
}

/** The boot the new window starts from, control characters shown as `\uXXXX` as in the briefing. */
async function bootText(
  ws: Workspace,
  episode: OpenEpisode,
  policy: LoadedPolicy,
  window: { id: string; ordinal: number; trigger: string | undefined },
  provider: Provider & { hooks: Hooks },
): Promise<string> {
  const [{ gatherFacts }, { BOOT_NEEDS, boot }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/boot.ts"),
  ]);
  const facts = await gatherFacts(ws, BOOT_NEEDS, { episode: { session_id: episode.session_id, kept: true } });
  const budget = budgetFor(provider.hooks, "boot", policy.policy);
  return printable(boot(facts, window, budget).join("\n"));
}
