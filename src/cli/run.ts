/**
 * The CLI's edge: find the command, parse its arguments, run it, and turn every outcome into an
 * exit code. This is the ONLY place that prints errors or decides exit codes; citty's runMain is
 * not used because it prints raw stacks and exits 1 for everything.
 */
import type { ArgsDef, CommandDef } from "citty";
import { EXIT, Failure, isFailure } from "../lib/failure.ts";
import { VERSION } from "../lib/version.ts";
import { mark } from "../lib/trace.ts";
import { remember } from "../lib/memo.ts";
import { pinClock } from "../lib/clock.ts";
import { parseArgv } from "./argv.ts";
import { isHookCommand } from "./hooks.ts";
import { COMMANDS } from "./commands/index.ts";
import { command } from "./define.ts";
import { out, err as toStderr } from "./print.ts";

const root = command({
  meta: { name: "majordomus", version: VERSION, description: "Keeps an AI coding agent's continuity in a git repository." },
  subCommands: COMMANDS,
});

type Resolved = { cmd: CommandDef<any>; path: string[]; rest: string[] };

function scopeOf(path: string[]): string {
  return ["majordomus", ...path].join(" ");
}

/** Follow subcommand names in argv; returns the command that will run and the args meant for it. */
async function resolve(argv: string[]): Promise<Resolved> {
  let cmd: CommandDef<any> = root;
  const path: string[] = [];
  let rest = argv;
  for (;;) {
    const subs = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) as Record<string, unknown> | undefined;
    const name = rest[0];
    if (!subs || name === undefined || name.startsWith("-")) return { cmd, path, rest };
    if (!(name in subs)) {
      throw new Failure("usage", `unknown command "${name}" for \`${scopeOf(path)}\``, `run \`${scopeOf(path)} --help\` to list commands`);
    }
    const next = subs[name] as CommandDef<any> | (() => Promise<CommandDef<any>>);
    cmd = typeof next === "function" ? await next() : next;
    path.push(name);
    rest = rest.slice(1);
  }
}

async function argsOf(cmd: CommandDef<any>): Promise<ArgsDef> {
  return ((typeof cmd.args === "function" ? await cmd.args() : cmd.args) ?? {}) as ArgsDef;
}

/** citty colours its usage text; ours is plain, so it reads the same in a pipe, a file or a log. */
function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "").replace(/[ \t]+$/gm, "");
}

async function usageOf(resolved: Resolved): Promise<string> {
  const { renderUsage } = await import("citty");
  return plain(await renderUsage(resolved.cmd, resolved.path.length > 0 ? root : undefined));
}

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

function printFailure(err: Failure): void {
  toStderr(`majordomus: ${err.message}`);
  for (const line of err.details) toStderr(`  ${line}`);
  if (err.hint) toStderr(`  → ${err.hint}`);
}

/** What a full, read-only or over-quota disk throws: a hook says so and lets its client go on. */
const DISK_ERRORS = new Set(["ENOSPC", "EROFS", "EDQUOT"]);

export async function run(argv: string[]): Promise<number> {
  remember(true);
  const hook = isHookCommand(argv);
  const code = await runCommandLine(argv, hook);
  // A hook never exits 2: a bad invocation is reported as missing (12) instead.
  return hook && code === EXIT.usage ? EXIT.missing : code;
}

async function runCommandLine(argv: string[], hook = false): Promise<number> {
  try {
    // One instant per command: every stamp, age and freshness label below reads this one.
    pinClock();
    const resolved = await resolve(argv);
    mark(`loaded ${resolved.path.join(" ") || "(root)"}`);
    if (wantsHelp(argv)) {
      out(await usageOf(resolved));
      return EXIT.ok;
    }
    if (!resolved.cmd.run) {
      toStderr(await usageOf(resolved));
      return EXIT.usage;
    }
    const args = parseArgv(resolved.rest, await argsOf(resolved.cmd), scopeOf(resolved.path));
    await resolved.cmd.run({ rawArgs: resolved.rest, args: args as never, cmd: resolved.cmd });
    mark("done");
    return EXIT.ok;
  } catch (err) {
    const errno = (err as { code?: unknown })?.code;
    if (hook && typeof errno === "string" && DISK_ERRORS.has(errno)) {
      // The disk is full or read-only: nothing could be recorded, and the client must not be blocked for it.
      toStderr(`majordomus: warning: ${errno === "EROFS" ? "the disk is read-only" : "the disk is full"}; this event was not recorded (${(err as Error).message})`);
      return EXIT.ok;
    }
    if (isFailure(err)) {
      printFailure(err);
      return err.code;
    }
    toStderr(`majordomus: internal error: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.MAJORDOMUS_LOG === "debug" && err instanceof Error && err.stack) toStderr(err.stack);
    else toStderr("  → this is a bug; rerun with MAJORDOMUS_LOG=debug to see where it happened, and report it");
    return EXIT.internal;
  }
}
