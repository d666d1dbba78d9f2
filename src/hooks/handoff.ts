/**
 * A hook answers its client at once and hands the work the client does not read (checkpoint,
 * continuation record and close; a new episode's working context, stranded-episode recovery) to
 * a detached copy of the binary: `capture work --ticket <name>`.
 *
 * Why: the client waits for its hooks. PreCompact holds the compaction, SessionStart the session,
 * and SessionEnd the client's exit (it kills a hook that overruns its ~1.5 s budget, which would
 * lose the close). Nothing is lost by not waiting for work whose result the client never reads.
 *
 * The ticket is the worker's only input: a small JSON file in `<state>/hook-work/` holding what the
 * event delivered (provider, client session, source, reason) and what the hook decided (a fresh
 * episode). It stays until its worker is done, so a start event can wait (bounded) for a close still
 * being written in its checkout, a close can wait for the working context its episode's start is
 * freezing, and `doctor` reports a ticket that outlived its worker. Beside the ticket the hook
 * leaves who its worker is (`<name>.by`: pid, boot and start time): a waiter stops waiting the
 * moment that process is gone (a container's exit kills every process in its namespace at once),
 * rather than after the ticket's lifetime. Where no detached worker can be
 * started (the source tree, a spawn that fails, MAJORDOMUS_HOOK_WORK=foreground), the hook does the
 * work itself. Which events hand work off is the events table's business (events.ts), not this
 * module's: it knows tickets, not events.
 */
import { readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { stamp } from "../lib/clock.ts";
import { ensureDir, publishNew, randomHex } from "../lib/fsx.ts";
import { readPlain } from "../lib/safe-read.ts";
import { log } from "../lib/log.ts";
import { compiled, spawnDetached } from "../lib/runtime.ts";
import { alive, formatHolder, holderOf, parseHolder } from "../lib/holder.ts";
import type { Layer } from "../layer/manifest.ts";
import { sectionPath } from "../layer/manifest.ts";
import type { Workspace } from "../workspace/workspace.ts";

export const TICKET_SCHEMA = "hook-work/v1";

/** What a hook hands its worker: everything the work needs, and nothing else. */
export type Ticket = {
  schema: typeof TICKET_SCHEMA;
  event: string;
  provider: string;
  provider_session?: string;
  source?: string;
  reason?: string;
  /** A start event that opened its episode (its working context is still to be frozen). */
  fresh?: boolean;
  /** A compression the client made that no checkpoint answered yet (an advisory client): its count. */
  compressions?: number;
  /** The hook's own `git status` answer, handed on (a file in the cache, as a shim writes one), so the worker does not run git again. */
  git_status?: string;
  handed_at: string;
  by: number;
};

export type Order = Omit<Ticket, "schema" | "handed_at" | "by">;

/** Work still running after this long has lost its worker: nobody waits for it any more. */
const LIVE_TICKET_MS = 10_000;
/** A ticket whose worker was never named (the hook died between the spawn and the note) is waited for this long at most. */
const UNNAMED_WORKER_MS = 1_000;
const POLL_MS = 5;
/** `<event>--<time36>-<hex>`: the only names a worker reads or removes. */
const NAME = /^([a-z]+)--[0-9a-z]+-[0-9a-f]+$/;

export function ticketsDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "hook-work");
}

/**
 * Where a hook's derived work is done: handed to a detached worker (what the client gets), or in
 * the hook itself (`MAJORDOMUS_HOOK_WORK=foreground`, read at the CLI's edge; and always when run
 * from source, where no binary can be started again).
 */
export type WorkMode = "hand-off" | "foreground";

/** How to start this binary again: only a compiled binary is its own program. */
function selfCommand(mode: WorkMode): string[] | undefined {
  if (mode === "foreground") return undefined;
  return compiled() ? [process.execPath] : undefined;
}

/**
 * Write the ticket and start `capture work` on it, detached (own session, no stdio: the client
 * must not wait for a pipe the worker holds open). Returns false when the caller must do the work.
 */
export function handOff(ws: Workspace, order: Order, mode: WorkMode): boolean {
  const self = selfCommand(mode);
  if (!self) return false;
  const dir = ticketsDir(ws.layer);
  const name = `${order.event}--${Date.now().toString(36)}-${randomHex(4)}`;
  const path = join(dir, `${name}.work`);
  try {
    ensureDir(dir, 0o700);
    const ticket: Ticket = { schema: TICKET_SCHEMA, ...order, handed_at: stamp(), by: process.pid };
    if (!publishNew(path, `${JSON.stringify(ticket)}\n`, 0o600, { durable: false })) return false;
  } catch (err) {
    log.debug(`no ticket for the derived work (${(err as Error).message}); doing it here`);
    return false;
  }
  let pid: number | undefined;
  try {
    pid = spawnDetached(
      [...self, "capture", "work", `--repo=${ws.position.worktree}`, `--ticket=${name}`],
      ws.position.worktree,
    );
  } catch (err) {
    log.debug(`the worker did not start (${(err as Error).message}); doing the work here`);
  }
  if (pid === undefined) {
    rmSync(path, { force: true });
    return false;
  }
  // Who works the ticket, so a waiter can tell at once when that worker is gone.
  publishNew(join(dir, `${name}.by`), `${formatHolder(holderOf(pid))}\n`, 0o600, { durable: false });
  log.debug(`derived work handed to process ${pid} (ticket ${name})`);
  return true;
}

/** The ticket `name` names, or why it cannot be worked (a name not like a ticket's is never opened). */
export function readTicket(
  layer: Layer,
  name: string,
  events: readonly string[],
): { ticket: Ticket } | { problem: string } {
  const match = NAME.exec(name);
  if (!match || !events.includes(match[1]!))
    return { problem: `${JSON.stringify(name)} is not the name of a hand-off ticket` };
  const path = join(ticketsDir(layer), `${name}.work`);
  // Never through a symlink: the ticket is a file the hook wrote, or nothing.
  const text = readPlain(path);
  if (text === undefined) return { problem: `no ticket ${name}` };
  try {
    const data = JSON.parse(text) as Partial<Ticket>;
    if (data.schema !== TICKET_SCHEMA || data.event !== match[1] || typeof data.provider !== "string")
      return { problem: `ticket ${name} is not a ${TICKET_SCHEMA} ticket for its event` };
    return { ticket: data as Ticket };
  } catch (err) {
    return { problem: `ticket ${name} is not JSON (${(err as Error).message})` };
  }
}

/** The worker is done (whatever the outcome): its ticket goes. */
export function settle(layer: Layer, name: string): void {
  if (!NAME.test(name)) return;
  rmSync(join(ticketsDir(layer), `${name}.work`), { force: true });
  rmSync(join(ticketsDir(layer), `${name}.by`), { force: true });
}

/** A ticket: its name, the event whose work it stands for, its age, and whether its worker is gone (and why). */
export type TicketState = { name: string; event: string; ageMs: number; lost: boolean; why?: string };

/** Whether a ticket's worker is gone: its named process is not alive, it was never named in time, or the ticket is past its lifetime. */
function lostWhy(dir: string, name: string, ageMs: number): string | undefined {
  if (ageMs > LIVE_TICKET_MS) return `older than ${LIVE_TICKET_MS / 1000} s`;
  const by = readPlain(join(dir, `${name}.by`));
  const holder = by === undefined ? undefined : parseHolder(by);
  if (holder) return alive(holder) ? undefined : `its worker (process ${holder.pid}) is gone`;
  return ageMs > UNNAMED_WORKER_MS ? "no worker was named for it" : undefined;
}

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
    const why = lostWhy(dir, name, ageMs);
    return [{ name, event: name.split("--")[0] ?? "", ageMs, lost: why !== undefined, ...(why ? { why } : {}) }];
  });
}

/**
 * Wait, at most `budgetMs`, until no work of these `events` handed off in this checkout is still
 * running. Returns how long it waited. A ticket past its lifetime is not waited for.
 */
export async function awaitWork(layer: Layer, events: readonly string[], budgetMs: number): Promise<number> {
  const live = () => tickets(layer).some((t) => events.includes(t.event) && !t.lost);
  if (!live()) return 0;
  const started = Date.now();
  while (live() && Date.now() - started < budgetMs) await new Promise((wake) => setTimeout(wake, POLL_MS));
  return Date.now() - started;
}

/**
 * Take over the work of a ticket whose worker is gone: the ticket is renamed to this process's
 * claim first (a rename is atomic, so of two takers only one wins), then read. The caller does
 * the work and settles the claim with `settleTaken`. Undefined when another taker won, or the
 * ticket is not a ticket.
 */
export function takeOver(
  layer: Layer,
  name: string,
  events: readonly string[],
): { ticket: Ticket; claim: string } | undefined {
  if (!NAME.test(name)) return undefined;
  const dir = ticketsDir(layer);
  const claim = `${name}.taken-${process.pid}`;
  try {
    renameSync(join(dir, `${name}.work`), join(dir, claim));
  } catch {
    return undefined;
  }
  rmSync(join(dir, `${name}.by`), { force: true });
  const text = readPlain(join(dir, claim));
  try {
    const data = text === undefined ? undefined : (JSON.parse(text) as Partial<Ticket>);
    if (
      data?.schema === TICKET_SCHEMA &&
      typeof data.event === "string" &&
      events.includes(data.event) &&
      typeof data.provider === "string"
    )
      return { ticket: data as Ticket, claim };
  } catch {
    // not JSON: dropped below
  }
  rmSync(join(dir, claim), { force: true });
  return undefined;
}

export function settleTaken(layer: Layer, claim: string): void {
  if (/^[a-z]+--[0-9a-z]+-[0-9a-f]+\.taken-\d+$/.test(claim)) rmSync(join(ticketsDir(layer), claim), { force: true });
}
