/**
 * Who holds something (a lock, a close claim): this process's identity as a later process can
 * check it. A pid alone is not enough: after a crash the pid is reused, and inside a PID namespace
 * (a container) the numbers are the namespace's own. On Linux a holder is (boot id, pid, start
 * time in clock ticks since boot), read from /proc, so a reused pid or a holder from a namespace
 * that has ended is never mistaken for a live one. Elsewhere only the pid can be checked.
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

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may contain spaces). */
function startOf(pid: number | "self"): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[19]);
  return Number.isFinite(start) ? start : undefined;
}

/** Field 4 of /proc/<pid>/stat: the parent's pid. */
function parentOf(pid: number | "self"): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isSafeInteger(parent) && parent > 1 ? parent : undefined;
}

/** A process as one word: `pid:start` where its start time is known, else the pid. */
export function processKey(pid: number): string {
  const start = startOf(pid);
  return start === undefined ? String(pid) : `${pid}:${start}`;
}

/** Programs that run a client's hook command for it: a hook's shell, not the client. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "ash", "busybox", "env", "timeout"]);

/**
 * The client that started this hook: the nearest process above it that is not a shell running the
 * hook's command (read from /proc/<pid>/comm), as processKey gives it. Only that process, never its
 * own parent (the shell the person started the client from, which every other program started
 * there shares). Undefined where /proc says nothing.
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

/** This process, as a holder. */
export function me(): Holder {
  if (mine) return mine;
  const boot = read("/proc/sys/kernel/random/boot_id")?.trim();
  const start = startOf("self");
  mine = { pid: process.pid, ...(boot ? { boot } : {}), ...(start !== undefined ? { start } : {}) };
  return mine;
}

/** Another process of this machine, as a holder (its start time read now): what a hook records of the worker it started. */
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
 * Whether the holder can be shown alive: the same boot, a process with its pid, and (where the
 * start time is known on both sides) the same start time. Anything that cannot be shown alive is
 * not: an empty or unreadable holder is dead.
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

/** A holder as one line of text (what a lock file holds). */
export function formatHolder(h: Holder): string {
  return JSON.stringify(h);
}

/** A lock file's holder: JSON as formatHolder writes it, or a bare pid (older writers); undefined when it says neither. */
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

/**
 * The other processes of this machine whose arguments hold every one of `words`, in order (Linux:
 * read from /proc; elsewhere none are known). For a hook that must know whether another hook of the
 * same checkout is still running (a compaction racing the end), before its own answer is final.
 */
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
