/**
 * `capture status`: per provider and aspect (prompt, session, mod), how far the wiring goes: unsupported (the client
 * cannot, cited), unadapted (no adapter yet, cited), unconfigured, named (its shim is missing, foreign or not
 * executable), wired (in place, not proven), verified (what the client names ran as the client runs it, on a
 * synthetic payload with mutation off, and did its job). A diagnostic never runs a program the repository controls:
 * only a command exactly as `capture install` writes it with a shim ours byte for byte, and an MCP command inside the
 * repository only when it is the recorded binary.
 */
import { constants, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { canAccess } from "../lib/fsx.ts";
import { onPath } from "../lib/path.ts";
import { shellQuoted } from "../lib/shell.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listAssets, readAsset } from "../assets/index.ts";
import { spawnText } from "../lib/spawn.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { consents, type CredentialKey, type LoadedPolicy } from "../policy/index.ts";
import { consentHere } from "../lifecycle/consent.ts";
import { answered, eventsOf } from "../providers/hooks.ts";
import {
  ASPECTS,
  providers,
  type Aspect,
  type HookEvent,
  type Hooks,
  type ModRow,
  type Provider,
} from "../providers/index.ts";
import { BINARY_RECORD, MARKER, settingsEntry, shimText } from "./shims.ts";
import { commandsIn, dialectOf } from "./dialects.ts";
import { isOurMcpEntry, MCP_COMMAND } from "./mcp-entry.ts";
import { objectAt, readConfig } from "./config.ts";
import { trustOf, type Trust } from "./trust.ts";
import { foreignEntries } from "./own-file.ts";
import { claudeMcpApproval, type Approval } from "./approval.ts";

/** Where each client keeps the person's approval of the project's MCP server (the providers table's mcp.approval). */
const APPROVALS: Record<string, (worktree: string, server: string) => Approval> = {
  "claude-mcpjson": claudeMcpApproval,
};
import { environment } from "../lib/env.ts";

export const STATES = ["unsupported", "unadapted", "unconfigured", "named", "rejected", "wired", "verified"] as const;
export type State = (typeof STATES)[number];
export type Row = { provider: string; aspect: Aspect; state: State; reason: string };

const ASPECT_EVENTS: Record<Exclude<Aspect, "mod" | "mcp">, HookEvent[]> = {
  prompt: eventsOf("prompt"),
  session: eventsOf("session"),
};

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const executable = (path: string) => canAccess(path, constants.X_OK);

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function findsBinary(root: string): boolean {
  const recorded = read(join(root, BINARY_RECORD))?.split("\n")[0];
  return (
    (recorded !== undefined && recorded.startsWith("/") && executable(recorded)) ||
    onPath("majordomus", { outside: root }) !== undefined
  );
}

/**
 * Run what the client would run for `event`: with its shell, from the checkout, with the project folder as the client
 * hands it and the person's PATH, so the shim finds the binary the client's hooks will find.
 */
async function runAsClient(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  event: HookEvent,
  payload: Record<string, string>,
  env: Record<string, string>,
) {
  const root = ws.position.worktree;
  const { shell, project_dir_env, project_dir_replaced } = provider.hooks.launch;
  const named = ourCommand(provider, event);
  const command = project_dir_replaced ? named.replaceAll(project_dir_replaced, shellQuoted(root)) : named;
  return spawnText(shell, ["-c", command], {
    cwd: root,
    input: JSON.stringify(payload),
    env: {
      ...environment(),
      // As the client itself runs it: not as another client that reads the same file would.
      ...Object.fromEntries(Object.values(provider.hooks.also_run_by ?? {}).map((name) => [name, ""])),
      MAJORDOMUS_LOG: "info",
      ...(project_dir_env ? { [project_dir_env]: root } : {}),
      ...env,
    },
  });
}

const ourCommand = (provider: Provider & { hooks: Hooks }, event: HookEvent) =>
  dialectOf(provider.hooks).commands(settingsEntry(provider, event))[0]!;

async function verifyPrompt(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<string | undefined> {
  const hooks = provider.hooks;
  const dir = mkdtempSync(join(tmpdir(), "majordomus-selftest-"));
  try {
    const text = `majordomus self test ${process.pid}`;
    const run = await runAsClient(
      ws,
      provider,
      "prompt",
      {
        [hooks.keys.prompt_text[0]!]: text,
        [hooks.keys.prompt_id[0]!]: `selftest-${process.pid}`,
        [hooks.keys.session[0]!]: `selftest-${process.pid}`,
      },
      { MAJORDOMUS_CAPTURE_DIR: dir },
    );
    const archived = readdirSync(dir).some((f) => f.endsWith(".json") && (read(join(dir, f)) ?? "").includes(text));
    return archived
      ? undefined
      : `the shim ran (exit ${run.status}) but archived nothing${run.stderr.trim() ? `: ${run.stderr.trim().split("\n").at(-1)}` : " (is majordomus on your PATH, or recorded by capture install?)"}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function verifySession(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<string | undefined> {
  const hooks = provider.hooks;
  const id = `selftest-${process.pid}`;
  const run = await runAsClient(
    ws,
    provider,
    "end",
    { [hooks.keys.session[0]!]: id, [hooks.keys.reason[0]!]: "other" },
    { MAJORDOMUS_DRY_RUN: "1" },
  );
  return run.stderr.includes(id)
    ? undefined
    : `the end shim ran (exit ${run.status}) but did not answer the dry run${run.stderr.trim() ? `: ${run.stderr.trim().split("\n").at(-1)}` : " (is majordomus on your PATH, or recorded by capture install?)"}`;
}

async function hookAspect(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  aspect: "prompt" | "session",
  execute: boolean,
  trust_: () => Promise<Trust | undefined>,
): Promise<Omit<Row, "provider" | "aspect">> {
  const hooks = provider.hooks;
  const config = readConfig(ws.position.worktree, hooks.config);
  if (config.state === "absent")
    return { state: "unconfigured", reason: `${hooks.config} does not exist; run \`majordomus capture install\`` };
  if (config.state === "unusable") return { state: "unconfigured", reason: config.why };
  const settings = config.data;
  const foreign = dialectOf(hooks).ownFile ? foreignEntries(settings, provider) : [];
  if (foreign.length > 0)
    return {
      state: "named",
      reason:
        `${hooks.config} is majordomus's own hook file and holds ${foreign.length} command(s) majordomus did not ` +
        `write (${foreign.join("; ")}); nothing in it was run, and ${provider.title} should not be trusted here ` +
        `until they are gone`,
    };
  for (const event of ASPECT_EVENTS[aspect].filter((e) => answered(hooks).includes(e))) {
    const row = hooks.events[event];
    const commands = commandsIn(settings, row.event, dialectOf(hooks));
    if (commands.length === 0)
      return {
        state: "unconfigured",
        reason: `${hooks.config} has no ${row.event} hook; run \`majordomus capture install\``,
      };
    if (!commands.some((c) => c.includes(row.shim)))
      return { state: "named", reason: `${hooks.config} has ${row.event} hooks, none running ${row.shim}` };
    const ours = ourCommand(provider, event);
    if (!commands.includes(ours))
      return {
        state: "named",
        reason:
          `${hooks.config} runs ${row.shim} for ${row.event} through a command of its own, not the ` +
          `one \`capture install\` writes (${ours}); it was not run. \`majordomus capture install ` +
          `--merge\` adds ours`,
      };
    const shim = join(ws.position.worktree, row.shim);
    const content = read(shim);
    if (content === undefined)
      return { state: "named", reason: `${row.shim} is named but missing; run \`majordomus capture install\`` };
    if (!content.includes(MARKER)) return { state: "named", reason: `${row.shim} was not written by majordomus` };
    if (content !== shimText(provider, event))
      return {
        state: "named",
        reason:
          `${row.shim} differs from what this majordomus writes (drift); it was not run. ` +
          `\`majordomus capture install\` rewrites it`,
      };
    if (!executable(shim))
      return { state: "named", reason: `${row.shim} is not executable, so the client cannot run it` };
  }
  const bridge = pluginState(ws.position.worktree, provider);
  if (bridge) return bridge;
  if (!execute) return { state: "wired", reason: "configured and in place; not executed (--no-verify)" };
  if (!findsBinary(ws.position.worktree))
    return {
      state: "wired",
      reason:
        "the shims find no majordomus to run (none recorded by `capture install`, none on PATH " +
        "outside this repository), so they do nothing",
    };
  const problem = aspect === "prompt" ? await verifyPrompt(ws, provider) : await verifySession(ws, provider);
  if (problem) return { state: "wired", reason: problem };
  // Whether the client will run the hook at all is the client's to say.
  const trust = await trust_();
  if (trust && !trust.trusted && !trust.pending)
    return { state: "wired", reason: `majordomus answers it, but ${provider.title} will not run it: ${trust.reason}` };
  const proven =
    aspect === "prompt"
      ? "the installed shim is ours byte for byte, and what it runs archived a synthetic prompt into a throwaway folder"
      : "the installed shims are ours byte for byte, and what the end shim runs answered a synthetic end event as a " +
        "dry run (nothing closed)";
  const bridged = hooks.plugin ? `${proven}; ${hooks.plugin.target}, which runs them, is ours byte for byte` : proven;
  return { state: "verified", reason: trust?.pending ? `${bridged}; ${trust.reason}` : bridged };
}

type Stated = Omit<Row, "provider" | "aspect">;

/** One mod here: the state that ends the check, or what its features add to the notes. */
async function oneMod(
  ws: Workspace,
  policy: LoadedPolicy | undefined,
  name: string,
  row: ModRow,
): Promise<{ stated: Stated } | { notes: string }> {
  const features = await Promise.all(
    Object.entries(row.features ?? {}).map(async ([key, title]) => ({
      title,
      grant: await consentHere(ws.position, policy, key as CredentialKey, { needsAsk: true }),
    })),
  );
  const needing = features.filter((f) => f.grant.asked).map((f) => f.title);
  if (!consents(policy?.policy, row.switch)) {
    const cannot = `${needing.join(", ")}, which need${needing.length === 1 ? "s" : ""} it, cannot run`;
    const reason = `${row.switch} is not true, so ${name} is not installed${needing.length > 0 ? ` (and ${cannot})` : ""}`;
    return { stated: { state: "unconfigured", reason } };
  }
  const install = "run `majordomus capture install`";
  const register = read(join(ws.position.worktree, row.target, "hooks", "register.ts"));
  if (register === undefined)
    return { stated: { state: "named", reason: `${row.switch} is true but ${row.target} is missing; ${install}` } };
  if (!register.includes(MARKER))
    return { stated: { state: "named", reason: `${row.target} was not written by majordomus` } };
  const drifted = listAssets(row.source).filter(
    (a) =>
      !a.path.endsWith(".test.ts") &&
      read(join(ws.position.worktree, row.target, a.path.slice(row.source.length))) !==
        Buffer.from(a.bytes).toString("utf8"),
  );
  if (drifted.length > 0) {
    const reason = `${row.target} differs from this majordomus's copy (${drifted.length} file(s)); ${install}`;
    return { stated: { state: "named", reason } };
  }
  const said = (f: (typeof features)[number]) =>
    f.grant.on ? `; ${f.title} is on` : f.grant.asked ? `; ${f.title} is off: ${f.grant.why}` : "";
  return { notes: features.map(said).join("") };
}

/** The plugin a client without command hooks loads to run the shims: missing or changed, nothing runs them. */
function pluginState(root: string, provider: Provider & { hooks: Hooks }): Stated | undefined {
  const plugin = provider.hooks.plugin;
  if (!plugin) return undefined;
  const text = read(join(root, plugin.target));
  if (text === undefined)
    return {
      state: "named",
      reason: `${plugin.target} is missing, so nothing runs the shims; run \`majordomus capture install\``,
    };
  if (text !== readAsset(plugin.source))
    return {
      state: "named",
      reason: `${plugin.target} differs from this majordomus's copy${text.includes(MARKER) ? " (drift)" : " (not written by majordomus)"}; \`majordomus capture install\` rewrites ours`,
    };
  return undefined;
}

async function modAspect(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<Stated> {
  const plugin = provider.hooks.plugin;
  if (plugin)
    return (
      pluginState(ws.position.worktree, provider) ?? {
        state: "wired",
        reason: `${plugin.target} is identical to this majordomus's copy; ${provider.title} loads it at its next start, so only a client run can verify it`,
      }
    );
  const mods = Object.entries(provider.hooks.mods ?? {});
  if (mods.length === 0) return { state: "unadapted", reason: "majordomus ships no mod for this client" };
  const policy = await ws.policy().catch(() => undefined);
  let notes = "";
  for (const [name, row] of mods) {
    const one = await oneMod(ws, policy, name, row);
    if ("stated" in one) return one.stated;
    notes += one.notes;
  }
  return {
    state: "wired",
    reason:
      `installed and identical to this majordomus's copy; the client loads it itself, so only ` +
      `a client run can verify it${notes}`,
  };
}

const NOT_HERE: ReadonlySet<string> = new Set(["unconfigured", "unadapted", "unsupported"]);

export function wiredProviders(rows: readonly Row[]): Set<string> {
  return new Set(
    rows.filter((r) => (r.aspect === "mod" ? r.state === "wired" : !NOT_HERE.has(r.state))).map((r) => r.provider),
  );
}

/** Every client with anything wired here, or, when none is, the clients majordomus can wire. */
export function shownRows(rows: readonly Row[]): Row[] {
  const wired = wiredProviders(rows);
  const adapted = new Set(
    rows.filter((r) => r.state !== "unadapted" && r.state !== "unsupported").map((r) => r.provider),
  );
  const keep = wired.size > 0 ? wired : adapted;
  return rows.filter((r) => keep.has(r.provider));
}

const FIX_PATH =
  "put majordomus on your PATH, or run `capture install` again with the binary you use (it " +
  "names that binary by its absolute path when PATH has none)";

/** The program the MCP entry starts, found as the client will find it, or the state saying why it is not run. */
function mcpProgram(root: string, command: string, config: string, title: string): string | Stated {
  const says = `${config} names \`${command} mcp\``;
  if (command === MCP_COMMAND) {
    const found = onPath(MCP_COMMAND, { outside: root });
    if (found !== undefined) return found;
    const reason = `${says}, but no majordomus is on your PATH (outside this repository), so ${title} cannot start it`;
    return { state: "wired", reason: `${reason}; ${FIX_PATH}` };
  }
  // By real paths: a link does not hide where a program is.
  const program = realOrUndefined(command);
  if (program === undefined || !executable(program)) {
    const reason = `${says}, which is missing or not executable here, so ${title} cannot start it`;
    return { state: "wired", reason: `${reason}; ${FIX_PATH}` };
  }
  const realRoot = realOrUndefined(root) ?? root;
  const recorded = read(join(root, BINARY_RECORD))?.split("\n")[0];
  const inside = program === realRoot || program.startsWith(`${realRoot}/`);
  if (inside && program !== (recorded && realOrUndefined(recorded))) {
    const reason = `a program inside this repository that \`capture install\` did not record; it was not run`;
    return { state: "named", reason: `${config} names ${command}, ${reason}` };
  }
  return program;
}

const MCP_PROBE = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "majordomus capture status", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
];

/**
 * The MCP configuration's command, started exactly as named with the person's PATH and asked for its tools; a path
 * inside the repository only when it is the recorded binary.
 */
async function mcpAspect(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  execute: boolean,
): Promise<Omit<Row, "provider" | "aspect">> {
  const m = provider.hooks.mcp;
  if (!m) return { state: "unadapted", reason: "majordomus does not configure an MCP server for this client" };
  const root = ws.position.worktree;
  const config = readConfig(root, m.config);
  if (config.state === "absent")
    return { state: "unconfigured", reason: `${m.config} does not exist; run \`majordomus capture install\`` };
  if (config.state === "unusable") return { state: "unconfigured", reason: config.why };
  const entry = objectAt(config.data, "mcpServers")?.[m.server];
  if (entry === undefined)
    return {
      state: "unconfigured",
      reason: `${m.config} names no ${m.server} server; run \`majordomus capture install\``,
    };
  if (!isOurMcpEntry(entry))
    return {
      state: "named",
      reason: `${m.config} names a ${m.server} server that is not \`majordomus mcp\`; it is left as it is`,
    };
  const named = `\`${entry.command} mcp\``;
  const approval = m.approval ? APPROVALS[m.approval]?.(root, m.server) : undefined;
  if (approval?.state === "rejected")
    return { state: "rejected", reason: `${m.config} names ${named}; ${approval.reason}` };
  if (!execute) return { state: "wired", reason: `${m.config} names ${named}; not executed (--no-verify)` };
  const program = mcpProgram(root, entry.command, m.config, provider.title);
  if (typeof program !== "string") return program;
  const run = await spawnText(program, ["mcp"], {
    cwd: root,
    env: { ...environment() },
    input: `${MCP_PROBE.map((x) => JSON.stringify(x)).join("\n")}\n`,
  });
  const listed = run.stdout.split("\n").some((l) => l.includes('"id":2') && l.includes('"continuity"'));
  const answered =
    `${m.config} names ${named}; started as ${provider.title} will start it (${program}), it answered a ` +
    `tools/list with its read-only tools`;
  if (listed && approval?.state === "pending") return { state: "wired", reason: `${answered}; ${approval.reason}` };
  return listed
    ? { state: "verified", reason: approval ? `${answered}; ${approval.reason}` : answered }
    : {
        state: "wired",
        reason:
          `${m.config} names ${named}, but started as ${provider.title} will start it (${program}) ` +
          `it did not list its tools (exit ${run.status}${run.stderr.trim() ? `: ${run.stderr.trim().split("\n").at(-1)}` : ""})`,
      };
}

export async function status(ws: Workspace, options: { verify: boolean }): Promise<Row[]> {
  const rows: Array<Promise<Row>> = [];
  for (const provider of (await providers()).values()) {
    let asked: Promise<Trust | undefined> | undefined;
    const trust = () => (asked ??= trustOf(ws, provider as Provider & { hooks: Hooks }));
    for (const aspect of ASPECTS) {
      const capability = provider.capabilities[aspect];
      // Every aspect at once: the shims of every client run side by side.
      const row: Promise<Omit<Row, "provider" | "aspect">> =
        capability.state === "none"
          ? Promise.resolve({ state: "unsupported", reason: capability.source })
          : !provider.hooks
            ? Promise.resolve({
                state: "unadapted",
                reason: `capable (${capability.source}); majordomus has no adapter for ${provider.title} yet`,
              })
            : aspect === "mod"
              ? modAspect(ws, provider as Provider & { hooks: Hooks })
              : aspect === "mcp"
                ? mcpAspect(ws, provider as Provider & { hooks: Hooks }, options.verify)
                : hookAspect(ws, provider as Provider & { hooks: Hooks }, aspect, options.verify, trust);
      rows.push(row.then((r) => ({ provider: provider.id, aspect, ...r })));
    }
  }
  return Promise.all(rows);
}
