/**
 * A turn ended by an API error (Claude Code's StopFailure, opencode's session.error): the session stays open. At a
 * usage or rate limit (the client's error is one of the row's `limit_errors`) the episode is marked stopped, so the
 * next worker, in any client, is told which client stopped, when and why; any such stop derives a checkpoint at once,
 * in the hook (the client may exit a moment later).
 */
import { isoStamp } from "../lib/clock.ts";
import { log } from "../lib/log.ts";
import { switchOn } from "../policy/index.ts";
import { adapted } from "../providers/index.ts";
import { attempt, derivedCheckpoint, orderOf, SWITCHES, who, type Row } from "./row.ts";

export const limit: Row = {
  switch: SWITCHES.limit,
  inHook: true,
  async answer(_ws, d) {
    return { work: orderOf(d) };
  },
  async work(ws, t, policy) {
    const episode = ws.episode;
    if (!episode) return;
    let checkpoint: string | undefined;
    if (policy && switchOn(policy.policy, SWITCHES.limit))
      await attempt(ws, who(t), "no checkpoint was derived at the stop", async () => {
        checkpoint = await derivedCheckpoint(ws, policy);
        log.info(`stopped by ${t.reason ?? "an API error"}: checkpointed into ${checkpoint}`);
      });
    const limits = (await adapted(t.provider)).hooks.limit_errors ?? [];
    if (t.reason === undefined || !limits.includes(t.reason)) return;
    const { noteStopped } = await import("../lifecycle/window.ts");
    await attempt(ws, who(t), "the stop was not marked", () =>
      noteStopped(ws, episode, { at: isoStamp(ws.at), error: t.reason!, ...(checkpoint ? { checkpoint } : {}) }),
    );
  },
};
