/** The start event: the episode opened (or kept) and the briefing on stdout; its work goes to a worker. */
import { clientProcess } from "../lib/holder.ts";
import { log } from "../lib/log.ts";
import { inEpisode, type Workspace } from "../workspace/workspace.ts";
import { appendEvent } from "../ledger/store.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { budgetFor } from "../providers/index.ts";
import { HOOKS } from "../providers/hooks.ts";
import type { Briefing } from "../views/briefing.ts";
import type { Facts } from "../facts/facts.ts";
import { stopOf, type OpenEpisode } from "../session/store.ts";
import { keyOf } from "../session/keys.ts";
import type { HookCall } from "./delivery.ts";
import { attempt, finishLeftCloses, orderOf, policyOrFail, SWITCHES, who, type Answer, type Row } from "./row.ts";

const CLOSE_WAIT_MS = 2_000;

const GIT_CEILING_MS = 2_000;

/** The briefing's size, budget, every cut, and the authored Next Action it quoted (what uptake measures), in the ledger. */
async function noteBriefing(ws: Workspace, d: HookCall, b: Briefing, facts: Facts | undefined): Promise<void> {
  const v = facts?.handover.view;
  const handed = v && v.how === "authored" && !v.history && v.next_action?.length ? v.path : undefined;
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
      ...(handed ? { handed } : {}),
    });
  });
  if (cuts.length)
    log.info(`the briefing was shortened to fit ${b.budget?.channel ?? "its line budget"}: ${cuts.join(", ")}`);
}

type Began = {
  opened?: { episode: OpenEpisode; kept: boolean };
  policy: LoadedPolicy | undefined;
  gitDeadlineMs: number;
};

async function briefIn(ws: Workspace, d: HookCall, { opened, policy, gitDeadlineMs }: Began): Promise<Answer> {
  const [{ gatherFacts }, { BRIEFING_NEEDS, briefing }] = await Promise.all([
    import("../facts/gather.ts"),
    import("../views/briefing.ts"),
  ]);
  const fresh = opened !== undefined && !opened.kept;
  let stdout: string | undefined;
  let briefed: Briefing | undefined;
  let facts: Facts | undefined;
  if (policy && switchOn(policy.policy, SWITCHES.start)) {
    await attempt(ws, d, "the briefing was not composed", async () => {
      facts = await gatherFacts(ws, BRIEFING_NEEDS, {
        episode: opened
          ? { session_id: opened.episode.session_id, kept: opened.kept, ...stoppedOf(ws, opened.episode) }
          : undefined,
        gitDeadlineMs,
      });
      const made = briefing(facts, budgetFor(d.provider.hooks, HOOKS.start.channel!, policy?.policy));
      stdout = made.lines.join("\n");
      briefed = made;
    });
    if (briefed) await noteBriefing(ws, d, briefed, facts);
  }
  // Sessions already at work are told of a new one at their next prompt, once.
  if (fresh && opened && facts && facts.live.length > 0) {
    const live = facts.live;
    const episode = opened.episode;
    const taskId = facts.task?.id;
    await attempt(ws, d, "the live sessions beside it were not told", async () => {
      const { tellLive } = await import("../lifecycle/live.ts");
      await tellLive(ws, episode, live, taskId);
    });
  }
  // Work is left only for a new episode, one old enough to be stranded, or a dead taker's close.
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

export const start: Row = {
  switch: SWITCHES.start,
  // After /clear the start follows an end at once: it waits for that end's close claim, so it briefs from the close.
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
    const [{ openEpisode }] = await Promise.all([
      import("../lifecycle/open.ts"),
      import("../facts/gather.ts"),
      import("../views/briefing.ts"),
    ]);
    // One git deadline for the opening and the briefing.
    const policy = await policyOrFail(ws, d);
    const gitDeadlineMs = Math.min(policy?.policy.session?.git_deadline_ms ?? GIT_CEILING_MS, GIT_CEILING_MS);
    let opened: Awaited<ReturnType<typeof openEpisode>> | undefined;
    if (d.providerSession !== undefined)
      await attempt(ws, d, "the episode did not open", async () => {
        // The history tools serve a transcript only to the client whose hooks opened the episode.
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

/** A resumed episode's stop at its usage limit, as the briefing tells it (its stop file). */
function stoppedOf(ws: Workspace, e: OpenEpisode): { stopped?: NonNullable<Facts["episode"]>["stopped"] } {
  const stop = stopOf(ws.layer, keyOf(e), e.session_id);
  return stop ? { stopped: { stopped_at: stop.stopped_at, error: stop.error, checkpoint: stop.checkpoint } } : {};
}
