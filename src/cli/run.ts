/**
 * The CLI's edge: parse argv with citty, run one command, and turn every outcome into an exit
 * code. This is the ONLY place that prints errors or decides exit codes; citty's own runMain is
 * not used because it prints raw stacks and exits 1 for everything.
 */
import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { EXIT, Failure, isFailure } from "../lib/failure.ts";
import { VERSION } from "../lib/version.ts";
import { mark } from "../lib/trace.ts";
import { COMMANDS } from "./commands/index.ts";

const root = defineCommand({
  meta: { name: "majordomus", version: VERSION, description: "Keeps an AI coding agent's continuity in a git repository." },
  subCommands: COMMANDS,
});

type Resolved = { cmd: CommandDef<any>; path: string[]; rest: string[] };

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
      const scope = ["majordomus", ...path].join(" ");
      throw new Failure("usage", `unknown command "${name}" for \`${scope}\``, `run \`${scope} --help\` to list commands`);
    }
    const next = subs[name] as CommandDef<any> | (() => Promise<CommandDef<any>>);
    cmd = typeof next === "function" ? await next() : next;
    path.push(name);
    rest = rest.slice(1);
  }
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** citty accepts any flag silently; a mistyped flag must be a usage error instead. */
async function rejectUnknownFlags(resolved: Resolved): Promise<void> {
  const defs = ((typeof resolved.cmd.args === "function" ? await resolved.cmd.args() : resolved.cmd.args) ?? {}) as ArgsDef;
  const known = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    known.set(kebab(name), def.type ?? "string");
    const aliases = "alias" in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
    for (const alias of aliases) known.set(alias, def.type ?? "string");
  }
  for (const token of resolved.rest) {
    if (token === "--") break;
    if (!token.startsWith("-") || token === "-") continue;
    const name = token.replace(/^--?/, "").split("=")[0]!;
    const negated = name.startsWith("no-") && known.get(name.slice(3)) === "boolean";
    if (!known.has(name) && !negated) {
      const scope = ["majordomus", ...resolved.path].join(" ");
      throw new Failure("usage", `unknown option ${token.split("=")[0]} for \`${scope}\``, `run \`${scope} --help\` to see its options`);
    }
  }
}

/** citty colours its usage text; ours is plain, so it reads the same in a pipe, a file or a log. */
function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "").replace(/[ \t]+$/gm, "");
}

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

function printFailure(err: Failure): void {
  console.error(`majordomus: ${err.message}`);
  for (const line of err.details) console.error(`  ${line}`);
  if (err.hint) console.error(`  → ${err.hint}`);
}

/** Errors citty raises for bad arguments (it does not export its error class). */
function isCittyUsageError(err: unknown): err is Error {
  return err instanceof Error && err.name === "CLIError";
}

export async function run(argv: string[]): Promise<number> {
  try {
    const resolved = await resolve(argv);
    mark(`loaded ${resolved.path.join(" ") || "(root)"}`);
    if (wantsHelp(argv)) {
      console.log(plain(await renderUsage(resolved.cmd, resolved.path.length ? root : undefined)));
      return EXIT.ok;
    }
    if (resolved.cmd === root) {
      console.error(plain(await renderUsage(root)));
      return EXIT.usage;
    }
    await rejectUnknownFlags(resolved);
    await runCommand(resolved.cmd, { rawArgs: resolved.rest });
    mark("done");
    return EXIT.ok;
  } catch (err) {
    if (isFailure(err)) {
      printFailure(err);
      return err.code;
    }
    if (isCittyUsageError(err)) {
      printFailure(new Failure("usage", plain(err.message), "run the command with --help to see its arguments"));
      return EXIT.usage;
    }
    console.error(`majordomus: internal error: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.MAJORDOMUS_LOG === "debug" && err instanceof Error && err.stack) console.error(err.stack);
    else console.error("  → this is a bug; rerun with MAJORDOMUS_LOG=debug to see where it happened, and report it");
    return EXIT.internal;
  }
}
