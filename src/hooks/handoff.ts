/**
 * A hook answers its client at once and hands the work the client never reads (checkpoint, continuation, close, a new
 * episode's context) to a detached `capture work --ticket <name>`: SessionEnd kills a hook past ~1.5 s, which would
 * lose the close. The ticket (a JSON file in `<state>/hook-work/`) stays until the worker is done, so others can wait
 * for it, and `<name>.by` names the worker so a waiter stops the moment it is gone. Where no worker can start, the
 * hook does the work itself.
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

export type Ticket = {
  schema: typeof TICKET_SCHEMA;
  event: string;
  provider: string;
  provider_session?: string;
  source?: string;
  reason?: string;
  fresh?: boolean;
  /** An advisory client's compressions no checkpoint answered yet. */
  compressions?: number;
  /** The hook's own `git status` answer, so the worker does not run git again. */
  git_status?: string;
  handed_at: string;
  by: number;
};

export type Order = Omit<Ticket, "schema" | "handed_at" | "by">;

const LIVE_TICKET_MS = 10_000;
/** A ticket whose worker was never named (the hook died after the spawn) is waited for this long at most. */
const UNNAMED_WORKER_MS = 1_000;
const POLL_MS = 5;
const NAME = /^([a-z]+)--[0-9a-z]+-[0-9a-f]+$/;

export function ticketsDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "hook-work");
}

/** `foreground` (MAJORDOMUS_HOOK_WORK, and always from source): the hook does the work itself. */
export type WorkMode = "hand-off" | "foreground";

function selfCommand(mode: WorkMode): string[] | undefined {
  if (mode === "foreground") return undefined;
  return compiled() ? [process.execPath] : undefined;
}

/** Write the ticket and start its worker detached; false when the caller must do the work. */
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
  publishNew(join(dir, `${name}.by`), `${formatHolder(holderOf(pid))}\n`, 0o600, { durable: false });
  log.debug(`derived work handed to process ${pid} (ticket ${name})`);
  return true;
}

export function readTicket(
  layer: Layer,
  name: string,
  events: readonly string[],
): { ticket: Ticket } | { problem: string } {
  const match = NAME.exec(name);
  if (!match || !events.includes(match[1]!))
    return { problem: `${JSON.stringify(name)} is not the name of a hand-off ticket` };
  const path = join(ticketsDir(layer), `${name}.work`);
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

export function settle(layer: Layer, name: string): void {
  if (!NAME.test(name)) return;
  rmSync(join(ticketsDir(layer), `${name}.work`), { force: true });
  rmSync(join(ticketsDir(layer), `${name}.by`), { force: true });
}

export type TicketState = { name: string; event: string; ageMs: number; lost: boolean; why?: string };

function lostWhy(dir: string, name: string, ageMs: number): string | undefined {
  if (ageMs > LIVE_TICKET_MS) return `older than ${LIVE_TICKET_MS / 1000} s`;
  const by = readPlain(join(dir, `${name}.by`));
  const holder = by === undefined ? undefined : parseHolder(by);
  if (holder) return alive(holder) ? undefined : `its worker (process ${holder.pid}) is gone`;
  return ageMs > UNNAMED_WORKER_MS ? "no worker was named for it" : undefined;
}

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
 * Wait at most `budgetMs` until no work of these events is running here; a ticket past its lifetime is not waited for.
 */
export async function awaitWork(layer: Layer, events: readonly string[], budgetMs: number): Promise<number> {
  const live = () => tickets(layer).some((t) => events.includes(t.event) && !t.lost);
  if (!live()) return 0;
  const started = Date.now();
  while (live() && Date.now() - started < budgetMs) await new Promise((wake) => setTimeout(wake, POLL_MS));
  return Date.now() - started;
}

/**
 * Take over a dead worker's ticket by renaming it to this process's claim (atomic: one taker wins), then read it.
 * Undefined when another won.
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
  } catch {}
  rmSync(join(dir, claim), { force: true });
  return undefined;
}

export function settleTaken(layer: Layer, claim: string): void {
  if (/^[a-z]+--[0-9a-z]+-[0-9a-f]+\.taken-\d+$/.test(claim)) rmSync(join(ticketsDir(layer), claim), { force: true });
}
