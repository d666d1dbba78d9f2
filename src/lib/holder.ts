/**
 * Who holds a lock or a claim, as a later process can check it. A pid alone is reused after a crash and means another
 * process inside a container; on Linux a holder is (boot id, pid, start time), read from /proc. Elsewhere only the pid.
 */
import { readdirSync, readFileSync } from "node:fs";
import { errnoCode } from "./failure.ts";

export type Holder = { pid: number; boot?: string; start?: number };

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function startOf(pid: number | "self"): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[19]);
  return Number.isFinite(start) ? start : undefined;
}

function parentOf(pid: number | "self"): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isSafeInteger(parent) && parent > 1 ? parent : undefined;
}

export function processKey(pid: number): string {
  const start = startOf(pid);
  return start === undefined ? String(pid) : `${pid}:${start}`;
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "ash", "busybox", "env", "timeout"]);

/**
 * The client that started this hook: the nearest process above it that is not a shell, never the shell the client was
 * started from (every other program there shares it).
 */
export function clientProcess(depth = 4): string | undefined {
  let pid = parentOf("self");
  for (let n = 0; pid !== undefined && n < depth; n++, pid = parentOf(pid)) {
    const comm = read(`/proc/${pid}/comm`)?.trim();
    if (comm === undefined) return undefined;
    if (!SHELLS.has(comm)) return processKey(pid);
  }
  return undefined;
}

let mine: Holder | undefined;

export function me(): Holder {
  if (mine) return mine;
  const boot = read("/proc/sys/kernel/random/boot_id")?.trim();
  const start = startOf("self");
  mine = { pid: process.pid, ...(boot ? { boot } : {}), ...(start !== undefined ? { start } : {}) };
  return mine;
}

export function holderOf(pid: number): Holder {
  const boot = me().boot;
  const start = startOf(pid);
  return { pid, ...(boot ? { boot } : {}), ...(start !== undefined ? { start } : {}) };
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === "EPERM";
  }
}

/**
 * Alive only when it can be shown so: same boot, a process with its pid and the same start time; anything else is dead.
 */
export function alive(h: Partial<Holder> | undefined): boolean {
  if (!h || !Number.isInteger(h.pid) || (h.pid as number) <= 0) return false;
  const pid = h.pid as number;
  const self = me();
  if (h.boot !== undefined && self.boot !== undefined && h.boot !== self.boot) return false;
  if (pid === process.pid) return h.start === undefined || self.start === undefined || h.start === self.start;
  if (!pidExists(pid)) return false;
  if (h.start !== undefined) {
    const now = startOf(pid);
    if (now !== undefined && now !== h.start) return false;
  }
  return true;
}

export function formatHolder(h: Holder): string {
  return JSON.stringify(h);
}

export function parseHolder(text: string): Holder | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t) };
  try {
    const data = JSON.parse(t) as Partial<Holder>;
    return Number.isInteger(data.pid) ? (data as Holder) : undefined;
  } catch {
    return undefined;
  }
}

/** Other processes whose arguments hold `words` in order (Linux): is a hook of this checkout still running? */
export function processesWith(words: readonly string[]): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    const args = read(`/proc/${pid}/cmdline`)?.split("\0");
    if (!args) continue;
    let at = 0;
    for (const arg of args) if (arg === words[at]) at++;
    if (at === words.length) found.push(pid);
  }
  return found;
}
