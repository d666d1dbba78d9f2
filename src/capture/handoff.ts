/**
 * A hook answers its client at once and hands the work the client does not read (checkpoint,
 * continuation record and close; a new episode's working context, stranded-episode recovery) to
 * a detached copy of the binary: `capture work`.
 *
 * Why: the client waits for its hooks. PreCompact holds the compaction, SessionStart the session,
 * and SessionEnd the client's exit (it kills a hook that overruns its ~1.5 s budget, which would
 * lose the close). Nothing is lost by not waiting for work whose result the client never reads.
 *
 * Each hand-off leaves a ticket in `<state>/hook-work/` until its worker is done: a start event
 * waits (bounded) for a close still being written in its checkout, so the briefing after `/clear`
 * shows the continuation record the end event just derived, and a close waits for the working
 * context its episode's start is still freezing; `doctor` reports a ticket that outlived its worker. Where no detached worker can be started (the source tree, a spawn that
 * fails, MAJORDOMUS_HOOK_WORK=foreground), the hook does the work itself, as before.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { isoStamp, now } from "../lib/clock.ts";
import { ensureDir, publishNew, randomHex } from "../lib/fsx.ts";
import { log } from "../lib/log.ts";
import { spawnDetached } from "../lib/runtime.ts";
import type { Layer } from "../layer/manifest.ts";
import { sectionPath } from "../layer/manifest.ts";
import type { Here } from "../layer/here.ts";
import type { Delivery } from "./delivery.ts";

declare const MAJORDOMUS_COMPILED: boolean | undefined;

/**
 * The events whose work a hook hands off. A start event prints its briefing itself and hands off
 * the rest (freezing the new episode's working context, recovering stranded episodes).
 */
export type HandedEvent = "start" | "compact" | "end";

export type Ticket = { name: string; event: HandedEvent; path: string };

/** Work still running after this long has lost its worker: nobody waits for it any more. */
const LIVE_TICKET_MS = 10_000;
const POLL_MS = 5;

export function ticketsDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "hook-work");
}

/** How to start this binary again: only a compiled binary is its own program. */
function selfCommand(): string[] | undefined {
  if (process.env.MAJORDOMUS_HOOK_WORK === "foreground") return undefined;
  return typeof MAJORDOMUS_COMPILED === "boolean" && MAJORDOMUS_COMPILED ? [process.execPath] : undefined;
}

/**
 * Start `capture work` for this delivery, detached (own session, no stdio: the client must not
 * wait for a pipe the worker holds open). Returns undefined when the caller must do the work.
 */
export function handOff(here: Here, d: Delivery & { event: HandedEvent }, extra: string[] = []): Ticket | undefined {
  const self = selfCommand();
  if (!self) return undefined;
  const dir = ticketsDir(here.layer);
  const name = `${d.event}--${Date.now().toString(36)}-${randomHex(4)}`;
  const path = join(dir, `${name}.work`);
  try {
    ensureDir(dir, 0o700);
    const ticket = { event: d.event, provider: d.provider.id, provider_session: d.providerSession ?? "none", handed_at: isoStamp(now()), by: process.pid };
    if (!publishNew(path, `${JSON.stringify(ticket)}\n`, 0o600, { durable: false })) return undefined;
  } catch (err) {
    log.debug(`no ticket for the derived work (${(err as Error).message}); doing it here`);
    return undefined;
  }
  const args = ["capture", "work", `--provider=${d.provider.id}`, `--event=${d.event}`, `--repo=${here.position.worktree}`, `--ticket=${name}`];
  if (d.providerSession !== undefined) args.push(`--provider-session=${d.providerSession}`);
  if (d.reason !== undefined) args.push(`--reason=${d.reason}`);
  args.push(...extra);
  let pid: number | undefined;
  try {
    pid = spawnDetached([...self, ...args], here.position.worktree);
  } catch (err) {
    log.debug(`the worker did not start (${(err as Error).message}); doing the work here`);
  }
  if (pid === undefined) {
    rmSync(path, { force: true });
    return undefined;
  }
  log.debug(`derived work handed to process ${pid} (ticket ${name})`);
  return { name, event: d.event, path };
}

/** The worker is done (whatever the outcome): its ticket goes. */
export function settle(layer: Layer, name: string): void {
  if (!/^(start|compact|end)--[0-9a-z]+-[0-9a-f]+$/.test(name)) return;
  rmSync(join(ticketsDir(layer), `${name}.work`), { force: true });
}

/** A ticket: its name, the event whose work it stands for, its age, and whether its worker is gone. */
export type TicketState = { name: string; event: string; ageMs: number; lost: boolean };

/** Every ticket in this checkout, with its age. */
export function tickets(layer: Layer): TicketState[] {
  const dir = ticketsDir(layer);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".work"));
  } catch {
    return [];
  }
  const at = Date.now();
  return names.flatMap((file) => {
    const stat = statSync(join(dir, file), { throwIfNoEntry: false });
    if (!stat) return [];
    const name = file.slice(0, -".work".length);
    const ageMs = at - stat.mtimeMs;
    return [{ name, event: name.split("--")[0] ?? "", ageMs, lost: ageMs > LIVE_TICKET_MS }];
  });
}

/**
 * Wait, at most `budgetMs`, until no work of these `events` handed off in this checkout is still
 * running (a start waits for a close; a close for the working context its episode's start is
 * still freezing). Returns how long it waited. A ticket past its lifetime is not waited for.
 */
export async function awaitWork(layer: Layer, events: HandedEvent[], budgetMs: number): Promise<number> {
  const live = () => tickets(layer).some((t) => (events as string[]).includes(t.event) && !t.lost);
  if (!live()) return 0;
  const started = Date.now();
  while (live() && Date.now() - started < budgetMs) await new Promise((wake) => setTimeout(wake, POLL_MS));
  return Date.now() - started;
}
