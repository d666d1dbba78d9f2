/**
 * The CLI's edge: the only place that prints errors or decides exit codes (citty's runMain prints stacks and exits 1
 * for everything).
 */
import type { ArgsDef, CommandDef } from "citty";
import { EXIT, Failure, isFailure } from "../lib/failure.ts";
import { VERSION } from "../lib/version.ts";
import { mark } from "../lib/trace.ts";
import { pinClock, unpinClock } from "../lib/clock.ts";
import { parseArgv } from "./argv.ts";
import { hookNamed, HOOK_COMMANDS, isHookCommand } from "./hooks.ts";
import { COMMANDS, GROUPS } from "./commands/index.ts";
import { command, type Command } from "./define.ts";
import { out, err as toStderr } from "./print.ts";
import { env } from "../lib/env.ts";

const root = command({
  meta: {
    name: "majordomus",
    version: VERSION,
    description: "Keeps an AI coding agent's continuity in a git repository.",
  },
  // --version is answered before anything loads (main.ts).
  args: { version: { type: "boolean", alias: "v", description: "Print the version" } },
  subCommands: COMMANDS,
  groups: GROUPS,
  examples: [
    "majordomus init",
    "majordomus capture install",
    'majordomus start "make the greeting configurable" --scope src',
    "majordomus handover --resolve",
    "majordomus doctor",
  ],
});

type Resolved = { cmd: Command<any>; path: string[]; rest: string[] };

function scopeOf(path: string[]): string {
  return ["majordomus", ...path].join(" ");
}

async function subcommandsOf(cmd: CommandDef<any>): Promise<Record<string, unknown> | undefined> {
  return (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) as
    Record<string, unknown> | undefined;
}

async function load(entry: unknown): Promise<Command<any>> {
  return typeof entry === "function" ? await (entry as () => Promise<Command<any>>)() : (entry as Command<any>);
}

const MEANT: Record<string, string> = {
  status: "majordomus session status",
  version: "majordomus --version",
  log: "majordomus history",
  show: "majordomus session show",
  list: "majordomus session list",
};

async function resolve(argv: string[]): Promise<Resolved> {
  const hook = hookNamed(argv);
  if (hook) return { cmd: await HOOK_COMMANDS[hook](), path: ["capture", hook], rest: argv.slice(2) };
  let cmd: Command<any> = root;
  const path: string[] = [];
  let rest = argv;
  for (;;) {
    const subs = await subcommandsOf(cmd);
    const name = rest[0];
    if (!subs || name === undefined || name.startsWith("-")) return { cmd, path, rest };
    if (!Object.hasOwn(subs, name)) {
      const meant = path.length === 0 && Object.hasOwn(MEANT, name) ? MEANT[name] : undefined;
      const { closest } = await import("../lib/suggest.ts");
      const nearest = closest(name, Object.keys(subs));
      const near = meant ?? (nearest === undefined ? undefined : scopeOf([...path, nearest]));
      throw new Failure(
        "usage",
        `unknown command "${name}" for \`${scopeOf(path)}\`${near ? `; did you mean \`${near}\`?` : ""}`,
        `run \`${scopeOf(path)} --help\` to list commands`,
      );
    }
    cmd = await load(subs[name]);
    path.push(name);
    rest = rest.slice(1);
  }
}

async function argsOf(cmd: CommandDef<any>): Promise<ArgsDef> {
  return ((typeof cmd.args === "function" ? await cmd.args() : cmd.args) ?? {}) as ArgsDef;
}

const metaOf = (cmd: Command<any>) => (cmd.meta ?? {}) as { description?: string; version?: string };

async function usageOf(resolved: Resolved): Promise<string> {
  const subs = Object.entries((await subcommandsOf(resolved.cmd)) ?? {});
  const loaded = await Promise.all(
    subs.map(async ([name, entry]) => ({
      name,
      description: metaOf(await load(entry)).description,
      group: resolved.cmd.groups?.[name],
    })),
  );
  const meta = metaOf(resolved.cmd);
  const args = resolved.path.length === 0 ? {} : await argsOf(resolved.cmd);
  const { helpText } = await import("./help.ts");
  return helpText({
    path: resolved.path,
    description: meta.description,
    version: resolved.path.length === 0 ? meta.version : undefined,
    args,
    subcommands: loaded,
    examples: resolved.cmd.examples ?? [],
  });
}

function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

export const ERROR_SCHEMA = "majordomus/error/v1";

function printFailure(err: Failure, json: boolean): void {
  if (json) {
    toStderr(
      JSON.stringify({
        schema: ERROR_SCHEMA,
        error: {
          kind: err.kind,
          exit_code: err.code,
          message: err.message,
          hint: err.hint ?? null,
          details: err.details,
        },
      }),
    );
    return;
  }
  toStderr(`majordomus: ${err.message}`);
  for (const line of err.details) toStderr(`  ${line}`);
  if (err.hint) toStderr(`  → ${err.hint}`);
}

const DISK_ERRORS = new Set(["ENOSPC", "EROFS", "EDQUOT"]);

export async function run(argv: string[]): Promise<number> {
  const hook = isHookCommand(argv);
  const code = await runCommandLine(argv, hook);
  // A hook never exits 2: a bad invocation is reported as missing (12).
  return hook && code === EXIT.usage ? EXIT.missing : code;
}

/** The exit code an error ends a command with, said on stderr (as JSON with --json). */
function failedWith(err: unknown, argv: string[], hook: boolean): number {
  const errno = (err as { code?: unknown })?.code;
  if (hook && typeof errno === "string" && DISK_ERRORS.has(errno)) {
    // A full or read-only disk: nothing could be recorded, and the client must not be blocked for it.
    toStderr(
      `majordomus: warning: ${errno === "EROFS" ? "the disk is read-only" : "the disk is full"}; ` +
        `this event was not recorded (${(err as Error).message})`,
    );
    return EXIT.ok;
  }
  const json = wantsJson(argv);
  if (isFailure(err)) {
    printFailure(err, json);
    return err.code;
  }
  const message = `internal error: ${err instanceof Error ? err.message : String(err)}`;
  const bug = "this is a bug; rerun with MAJORDOMUS_LOG=debug to see where it happened, and report it";
  if (json) {
    printFailure(new Failure("internal", message, bug), true);
    return EXIT.internal;
  }
  toStderr(`majordomus: ${message}`);
  if (env("MAJORDOMUS_LOG") === "debug" && err instanceof Error && err.stack) toStderr(err.stack);
  else toStderr(`  → ${bug}`);
  return EXIT.internal;
}

async function runCommandLine(argv: string[], hook = false): Promise<number> {
  if (argv[0] === "help") argv = [...argv.slice(1), "--help"];
  try {
    pinClock();
    const resolved = await resolve(argv);
    if (resolved.cmd.longLived) unpinClock();
    mark(`loaded ${resolved.path.join(" ") || "(root)"}`);
    if (wantsHelp(argv)) {
      out(await usageOf(resolved));
      return EXIT.ok;
    }
    if (!resolved.cmd.run) {
      const flags = parseArgv(resolved.rest, await argsOf(resolved.cmd), scopeOf(resolved.path));
      if (resolved.path.length === 0 && flags.version === true) {
        out(VERSION);
        return EXIT.ok;
      }
      if (resolved.rest.length === 0 && resolved.path.length > 0)
        throw new Failure(
          "usage",
          `\`${scopeOf(resolved.path)}\` needs a command`,
          `run \`${scopeOf(resolved.path)} --help\` to list them`,
        );
      toStderr(await usageOf(resolved));
      return EXIT.usage;
    }
    const args = parseArgv(resolved.rest, await argsOf(resolved.cmd), scopeOf(resolved.path));
    await resolved.cmd.run({
      rawArgs: resolved.rest,
      args: args as never,
      cmd: resolved.cmd,
      data: { commands: COMMANDS },
    });
    mark("done");
    return EXIT.ok;
  } catch (err) {
    return failedWith(err, argv, hook);
  }
}
