/**
 * `capture install`: shims, the client's hook configuration and the switched mods. Ownership is by marker: what
 * majordomus did not write is never changed, what it wrote is rewritten when it drifts. A settings file lacking our
 * entries stays byte-identical unless --merge.
 */
import { compiled } from "../lib/runtime.ts";
import { Failure } from "../lib/failure.ts";
import { chmodSync, realpathSync, statSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { dirname, join } from "node:path";
import { ensureDir, readIfExists, writeFileAtomic } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { answered, type HookEvent, type Hooks, type Provider } from "../providers/index.ts";
import { MARKER, settingsEntry, wholeFiles } from "./shims.ts";
import { commandsIn, dialectOf, DIALECTS } from "./dialects.ts";
import { editJson, freshJson, type JsonEdit } from "./json-edit.ts";
import { configToChange, objectAt, refuseLinksFor } from "./config.ts";
import { isOurMcpEntry, MCP_COMMAND, mcpCommandFor, mcpEntry } from "./mcp-entry.ts";
import { onPath } from "../lib/path.ts";

import type { InstallReport, Line } from "./report.ts";
import { backupOf, noteMerge } from "./backups.ts";
import { installMods } from "./mods.ts";
import { foreignEntries, hookFilesBeside } from "./own-file.ts";
import { LOCAL_SETTINGS } from "./approval.ts";
export { modFiles, removeOurs } from "./mods.ts";
export type { Action, InstallReport, Line } from "./report.ts";

function converge(root: string, rel: string, content: string, mode: number): Line {
  const path = join(root, rel);
  const current = readIfExists(path);
  if (current !== undefined && !current.includes(MARKER))
    return { path: rel, action: "left alone", note: "not written by majordomus" };
  if (current === content && (statSync(path).mode & 0o777) === mode) return { path: rel, action: "already present" };
  ensureDir(dirname(path));
  writeFileAtomic(path, content, mode);
  chmodSync(path, mode);
  return {
    path: rel,
    action: current === undefined ? "written" : "rewritten",
    note: current === undefined ? undefined : "it had drifted from this majordomus's copy",
  };
}

/** The events whose hook the client's file does not run through our shim. */
function missingHooks(settings: Record<string, unknown>, provider: Provider & { hooks: Hooks }): HookEvent[] {
  const { events } = provider.hooks;
  const dialect = dialectOf(provider.hooks);
  return answered(provider.hooks).filter(
    (e) => !commandsIn(settings, events[e].event, dialect).some((c) => c.includes(events[e].shim)),
  );
}

function freshSettings(provider: Provider & { hooks: Hooks }, path: string, rel: string): Line {
  const hooks: Record<string, unknown[]> = {};
  for (const event of answered(provider.hooks))
    hooks[provider.hooks.events[event].event] = [settingsEntry(provider, event)];
  ensureDir(dirname(path));
  writeFileAtomic(path, freshJson({ ...dialectOf(provider.hooks).skeleton, hooks }), 0o644);
  const names = answered(provider.hooks)
    .map((e) => provider.hooks.events[e].event)
    .join(", ");
  return { path: rel, action: "written", note: `with the ${names} hooks` };
}

/** The edits that add ours after the person's hooks for each missing event, leaving every other byte. */
function addOurs(
  settings: Record<string, unknown>,
  provider: Provider & { hooks: Hooks },
  missing: readonly HookEvent[],
): JsonEdit[] {
  const hooks = objectAt(settings, "hooks") ?? {};
  return missing.map((e) => {
    const name = provider.hooks.events[e].event;
    const list = hooks[name];
    return Array.isArray(list)
      ? { path: ["hooks", name, list.length], value: settingsEntry(provider, e), insert: true }
      : { path: ["hooks", name], value: [settingsEntry(provider, e)] };
  });
}

/**
 * Our own entries written by an earlier majordomus with an empty matcher, for a client that now wants none: Copilot
 * reads Claude Code's file too and refuses the whole of it over one empty matcher (1.0.102), the person's hooks with it.
 */
function staleMatchers(settings: Record<string, unknown>, provider: Provider & { hooks: Hooks }): JsonEdit[] {
  if (provider.hooks.matcher !== undefined || dialectOf(provider.hooks) !== DIALECTS.nested) return [];
  const ours = (c: string) => answered(provider.hooks).some((e) => c.includes(provider.hooks.events[e].shim));
  const edits: JsonEdit[] = [];
  for (const [name, list] of Object.entries(objectAt(settings, "hooks") ?? {})) {
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      const commands = DIALECTS.nested.commands(entry);
      if ((entry as { matcher?: unknown })?.matcher === "" && commands.length > 0 && commands.every(ours))
        edits.push({ path: ["hooks", name, i, "matcher"], value: undefined });
    });
  }
  return edits;
}

function rewriteMatchers(ws: Workspace, path: string, rel: string, edits: JsonEdit[], report: InstallReport): void {
  report.backup = backupOf(ws, path, rel);
  writeFileAtomic(path, editJson(readIfExists(path) ?? "{}", edits), statSync(path).mode & 0o777);
  report.lines.push({
    path: rel,
    action: "rewritten",
    note:
      `our ${edits.length} hook entr${edits.length === 1 ? "y" : "ies"} lost ${edits.length === 1 ? "its" : "their"} ` +
      `empty matcher (another client that reads this file refuses it); nothing else changed; backup at ${report.backup}`,
  });
}

function settingsFile(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  merge: boolean,
  report: InstallReport,
): void {
  const path = join(ws.position.worktree, provider.hooks.config);
  const rel = provider.hooks.config;
  const settings = configToChange(ws.position.worktree, rel, "capture install");
  if (settings === undefined) return void report.lines.push(freshSettings(provider, path, rel));
  const missing = missingHooks(settings, provider);
  if (missing.length === 0) {
    const stale = staleMatchers(settings, provider);
    if (stale.length > 0) return rewriteMatchers(ws, path, rel, stale, report);
    report.lines.push({ path: rel, action: "already present", note: "it names every majordomus hook" });
    return;
  }
  if (!merge) {
    for (const e of missing)
      report.missing.push({
        event: provider.hooks.events[e].event,
        entry: `"${provider.hooks.events[e].event}": [ ${JSON.stringify(settingsEntry(provider, e))} ]`,
      });
    report.lines.push({
      path: rel,
      action: "refused",
      note:
        `it exists and does not name ${missing.length} majordomus hook(s); it is yours, so it ` +
        `was left byte-identical`,
    });
    return;
  }
  report.backup = backupOf(ws, path, rel);
  const merged = editJson(readIfExists(path) ?? "{}", [
    ...staleMatchers(settings, provider),
    ...addOurs(settings, provider, missing),
  ]);
  writeFileAtomic(path, merged, statSync(path).mode & 0o777);
  noteMerge(ws, rel, report.backup, merged);
  report.lines.push({
    path: rel,
    action: "merged",
    note:
      `added ${missing.map((e) => provider.hooks.events[e].event).join(", ")}; every other line ` +
      `kept as it was; backup at ${report.backup}`,
  });
}

const mcpCommandHere = (ws: Workspace, recorded: string | undefined) =>
  mcpCommandFor(onPath(MCP_COMMAND, { outside: ws.position.worktree }), recorded);

function mcpConfig(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  entry: { command: string; why: string },
  merge: boolean,
  report: InstallReport,
): void {
  const m = provider.hooks.mcp;
  if (!m) return;
  const path = join(ws.position.worktree, m.config);
  const wanted = mcpEntry(entry.command);
  const config = configToChange(ws.position.worktree, m.config, "capture install");
  if (config === undefined) {
    writeFileAtomic(path, freshJson({ mcpServers: { [m.server]: wanted } }), 0o644);
    report.lines.push({ path: m.config, action: "written", note: `${entry.why}, as the MCP server ${m.server}` });
    return;
  }
  const servers = objectAt(config, "mcpServers") ?? {};
  const current = servers[m.server];
  if (isDeepStrictEqual(current, wanted))
    return void report.lines.push({ path: m.config, action: "already present", note: entry.why });
  if (current !== undefined && !isOurMcpEntry(current))
    return void report.lines.push({
      path: m.config,
      action: "left alone",
      note: `it names another server ${m.server}; it is yours`,
    });
  if (current === undefined && !merge) {
    report.missing.push({ event: "mcpServers", entry: `"${m.server}": ${JSON.stringify(wanted)}` });
    report.lines.push({
      path: m.config,
      action: "refused",
      note: `it exists and does not name the ${m.server} server; it is yours, so it was left byte-identical`,
    });
    return;
  }
  const backup = backupOf(ws, path, m.config);
  const merged = editJson(readIfExists(path) ?? "{}", [{ path: ["mcpServers", m.server], value: wanted }]);
  writeFileAtomic(path, merged, statSync(path).mode & 0o777);
  if (current === undefined) noteMerge(ws, m.config, backup, merged);
  report.lines.push({
    path: m.config,
    action: current === undefined ? "merged" : "rewritten",
    note:
      `${current === undefined ? `added the ${m.server} server` : `our ${m.server} server brought up to date: it ${entry.why}`}; ` +
      `every other line kept as it was; backup at ${backup}`,
  });
}

/** A hook file of our own holding a command we did not write: refused whatever the flags, each entry named. */
function refuseForeign(ws: Workspace, provider: Provider & { hooks: Hooks }): void {
  if (!dialectOf(provider.hooks).ownFile) return;
  const rel = provider.hooks.config;
  const settings = configToChange(ws.position.worktree, rel, "capture install");
  const foreign = settings ? foreignEntries(settings, provider) : [];
  if (foreign.length === 0) return;
  const beside = hookFilesBeside(ws.position.worktree, rel);
  throw new Failure(
    "refused",
    `${rel} is majordomus's own hook file, and it holds ${foreign.length} command(s) majordomus did not write; ` +
      `nothing was written, and ${provider.title} should not be trusted here until they are gone:\n` +
      foreign.map((f) => `  ${f}`).join("\n") +
      (beside.length > 0 ? `\n${provider.title} also runs every hook in ${beside.join(", ")} (not majordomus's)` : ""),
    `read them; if one is yours, move it to a hook file of your own beside it, then remove them from ${rel} (or the ` +
      `file) and run \`majordomus capture install\` again`,
  );
}

/** What an install would refuse to change, listed first: one that cannot wire every aspect writes nothing. */
export function refusals(ws: Workspace, provider: Provider & { hooks: Hooks }, merge: boolean): InstallReport {
  refuseLinksFor(ws.position.worktree, provider);
  refuseForeign(ws, provider);
  const report: InstallReport = { lines: [], missing: [] };
  if (merge) return report;
  const settings = configToChange(ws.position.worktree, provider.hooks.config, "capture install");
  if (settings !== undefined) {
    const missing = missingHooks(settings, provider);
    for (const e of missing)
      report.missing.push({
        event: provider.hooks.events[e].event,
        entry: `"${provider.hooks.events[e].event}": [ ${JSON.stringify(settingsEntry(provider, e))} ]`,
      });
    if (missing.length > 0)
      report.lines.push({
        path: provider.hooks.config,
        action: "refused",
        note:
          `it exists and does not name ${missing.length} majordomus hook(s); it is yours, so it ` +
          `was left byte-identical`,
      });
  }
  const m = provider.hooks.mcp;
  const config = m ? configToChange(ws.position.worktree, m.config, "capture install") : undefined;
  if (m && config !== undefined && (objectAt(config, "mcpServers") ?? {})[m.server] === undefined) {
    const self = compiled() ? realpathSync(process.execPath) : undefined;
    report.missing.push({
      event: "mcpServers",
      entry: `"${m.server}": ${JSON.stringify(mcpEntry(mcpCommandHere(ws, self).command))}`,
    });
    report.lines.push({
      path: m.config,
      action: "refused",
      note: `it exists and does not name the ${m.server} server; it is yours, so it was left byte-identical`,
    });
  }
  return report;
}

export async function install(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  options: { merge: boolean },
): Promise<InstallReport> {
  refuseLinksFor(ws.position.worktree, provider);
  refuseForeign(ws, provider);
  // A configuration it cannot use (a folder, not JSON) stops the install before anything is written.
  const m = provider.hooks.mcp;
  for (const rel of [provider.hooks.config, ...(m ? [m.config] : []), ...(m?.approval ? [LOCAL_SETTINGS] : [])])
    configToChange(ws.position.worktree, rel, "capture install");
  const report: InstallReport = { lines: [], missing: [] };
  for (const f of wholeFiles(provider)) report.lines.push(converge(ws.position.worktree, f.rel, f.text(), f.mode));
  const policy = await ws.policy().catch(() => undefined);
  installMods(ws, provider, policy?.policy, report);
  settingsFile(ws, provider, options.merge, report);
  // The shims run the person's own binary, recorded in the local half; the MCP entry names it by path when PATH has
  // none.
  const { planBinary, commitBinary } = await import("./binary.ts");
  const binary = planBinary(ws);
  mcpConfig(ws, provider, mcpCommandHere(ws, binary.record), options.merge, report);
  await (await import("./approve.ts")).approveMcp(ws, provider, report);
  report.lines.push(commitBinary(ws, binary));
  const { trustOf } = await import("./trust.ts");
  report.trust = await trustOf(ws, provider);
  return report;
}
