/**
 * `capture uninstall`: remove exactly what install wrote and still carries its marker; a file without it stays
 * byte-identical, and what was left is said.
 */
import { dialectOf } from "./dialects.ts";
import { readdirSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { readIfExists, writeFileAtomic } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { answered, type Hooks, type Provider } from "../providers/index.ts";
import { MARKER, wholeFiles } from "./shims.ts";
import { configToChange, objectAt, refuseLinksFor } from "./config.ts";
import { modFiles, removeOurs, type InstallReport } from "./install.ts";
import { backupOf, originalOf } from "./backups.ts";
import { isOurMcpEntry } from "./mcp-entry.ts";
import { editJson, type JsonEdit } from "./json-edit.ts";
import { withdrawMcp } from "./approve.ts";

function removeShims(ws: Workspace, provider: Provider & { hooks: Hooks }, report: InstallReport): void {
  const files = wholeFiles(provider).map((f) => f.rel);
  for (const rel of files) {
    const path = join(ws.position.worktree, rel);
    const text = readIfExists(path);
    if (text === undefined) report.lines.push({ path: rel, action: "not there" });
    else if (!text.includes(MARKER))
      report.lines.push({ path: rel, action: "left alone", note: "not written by majordomus" });
    else {
      unlinkSync(path);
      report.lines.push({ path: rel, action: "removed" });
    }
  }
  // Each folder they leave empty goes, and its parent when that is left empty too (`.opencode/` of plugins/).
  for (const dir of new Set(files.map((rel) => dirname(join(ws.position.worktree, rel))))) {
    removeIfEmpty(dir, ws.position.worktree);
    removeIfEmpty(dirname(dir), ws.position.worktree);
  }
}

function removeIfEmpty(dir: string, worktree: string): void {
  if (dir === worktree || !dir.startsWith(`${worktree}/`)) return;
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {}
}

/** A file `--merge` changed and nobody touched since goes back byte for byte from its backup. */
function restored(ws: Workspace, rel: string, report: InstallReport, what: string): boolean {
  const path = join(ws.position.worktree, rel);
  const current = readIfExists(path);
  const original = current === undefined ? undefined : originalOf(ws, rel, current);
  if (!original) return false;
  writeFileAtomic(path, original.bytes, statSync(path).mode & 0o777);
  original.forget();
  report.lines.push({
    path: rel,
    action: "rewritten",
    note: `your original, byte for byte, from the backup made when ${what} were merged in`,
  });
  return true;
}

function oursIn(provider: Provider & { hooks: Hooks }, command: unknown): boolean {
  return (
    typeof command === "string" && answered(provider.hooks).some((e) => command.includes(provider.hooks.events[e].shim))
  );
}

/** The edits that take our handlers out of the hook file, last index first so each path still names its entry. */
function ourEntriesOut(
  hooks: Record<string, unknown>,
  provider: Provider & { hooks: Hooks },
): { edits: JsonEdit[]; removed: number; left: number } {
  const dialect = dialectOf(provider.hooks);
  const edits: JsonEdit[] = [];
  let removed = 0;
  let left = 0;
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      left++;
      continue;
    }
    const kept = entries.map((entry) => {
      const out = dialect.without(entry, (command) => oursIn(provider, command));
      removed += out.removed;
      return out;
    });
    if (kept.every((k) => k.kept === undefined)) {
      if (kept.some((k) => k.removed > 0)) edits.push({ path: ["hooks", event], value: undefined });
      else left++;
      continue;
    }
    left++;
    for (let i = kept.length - 1; i >= 0; i--) {
      const k = kept[i]!;
      if (k.removed === 0) continue;
      if (k.kept === undefined) edits.push({ path: ["hooks", event, i], value: undefined });
      else edits.push({ path: ["hooks", event, i, "hooks"], value: (k.kept as { hooks: unknown }).hooks });
    }
  }
  return { edits, removed, left };
}

function removeEntries(ws: Workspace, provider: Provider & { hooks: Hooks }, report: InstallReport): void {
  const rel = provider.hooks.config;
  const path = join(ws.position.worktree, rel);
  const settings = configToChange(ws.position.worktree, rel, "capture uninstall");
  if (settings === undefined) return void report.lines.push({ path: rel, action: "not there" });
  if (restored(ws, rel, report, "the majordomus hooks")) return;
  const dialect = dialectOf(provider.hooks);
  const { edits, removed, left } = ourEntriesOut(objectAt(settings, "hooks") ?? {}, provider);
  if (removed === 0)
    return void report.lines.push({ path: rel, action: "left alone", note: "it names no majordomus hook" });
  const rest = Object.keys(settings).filter((k) => k !== "hooks" || left > 0);
  if (rest.every((k) => settings[k] === dialect.skeleton[k])) {
    unlinkSync(path);
    return void report.lines.push({
      path: rel,
      action: "removed",
      note: `it held only the ${removed} majordomus hook(s)`,
    });
  }
  if (left === 0) edits.push({ path: ["hooks"], value: undefined });
  report.backup = backupOf(ws, path, rel);
  writeFileAtomic(path, editJson(readIfExists(path) ?? "{}", edits), statSync(path).mode & 0o777);
  report.lines.push({
    path: rel,
    action: "rewritten",
    note: `removed the ${removed} majordomus hook(s); every other line kept as it was; backup at ${report.backup}`,
  });
}

function removeMods(ws: Workspace, provider: Provider & { hooks: Hooks }, report: InstallReport): void {
  for (const [name, row] of Object.entries(provider.hooks.mods ?? {})) {
    const target = join(ws.position.worktree, row.target);
    const rel = row.target.replace(/\/$/, "");
    const register = readIfExists(join(target, "hooks", "register.ts"));
    if (register === undefined) {
      report.lines.push({ path: rel, action: "not there" });
      continue;
    }
    if (!register.includes(MARKER)) {
      report.lines.push({ path: rel, action: "left alone", note: `the ${name} folder was not written by majordomus` });
      continue;
    }
    const left = removeOurs(target, modFiles(row.source));
    removeIfEmpty(dirname(target.replace(/\/$/, "")), ws.position.worktree);
    report.lines.push({
      path: rel,
      action: "removed",
      note: left.length
        ? `files not ours were left: ${left.map((f) => f.slice(ws.position.worktree.length + 1)).join(", ")}`
        : `the policy's ${row.switch} is unchanged; \`capture install\` writes it again`,
    });
  }
}

function removeMcp(ws: Workspace, provider: Provider & { hooks: Hooks }, report: InstallReport): void {
  const m = provider.hooks.mcp;
  if (!m) return;
  const path = join(ws.position.worktree, m.config);
  const config = configToChange(ws.position.worktree, m.config, "capture uninstall");
  if (config === undefined) return void report.lines.push({ path: m.config, action: "not there" });
  if (restored(ws, m.config, report, `the ${m.server} server`)) return;
  const servers = objectAt(config, "mcpServers");
  if (!servers || !isOurMcpEntry(servers[m.server]))
    return void report.lines.push({
      path: m.config,
      action: "left alone",
      note: `it does not name majordomus mcp as ${m.server}`,
    });
  const others = Object.keys(servers).filter((k) => k !== m.server);
  const otherKeys = Object.keys(config).filter((k) => k !== "mcpServers");
  if (others.length === 0 && otherKeys.length === 0) {
    unlinkSync(path);
    return void report.lines.push({ path: m.config, action: "removed", note: "it held only the majordomus server" });
  }
  report.backup = backupOf(ws, path, m.config);
  const edit: JsonEdit =
    others.length === 0
      ? { path: ["mcpServers"], value: undefined }
      : { path: ["mcpServers", m.server], value: undefined };
  writeFileAtomic(path, editJson(readIfExists(path) ?? "{}", [edit]), statSync(path).mode & 0o777);
  report.lines.push({
    path: m.config,
    action: "rewritten",
    note: `removed the ${m.server} server; every other line kept as it was; backup at ${report.backup}`,
  });
}

export function uninstall(ws: Workspace, provider: Provider & { hooks: Hooks }): InstallReport {
  refuseLinksFor(ws.position.worktree, provider);
  const report: InstallReport = { lines: [], missing: [] };
  removeEntries(ws, provider, report);
  removeShims(ws, provider, report);
  removeMods(ws, provider, report);
  removeMcp(ws, provider, report);
  withdrawMcp(ws, provider, report);
  return report;
}
