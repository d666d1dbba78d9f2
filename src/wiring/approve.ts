/**
 * `capture install` (the person's own explicit install) records their approval of the project's MCP server where
 * Claude Code keeps it; never over a rejection, into a file git tracks, or through a link.
 */
import { appendFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { readIfExists, writeFileAtomic, ensureDir } from "../lib/fsx.ts";
import { git } from "../repo/git.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { requireIgnored } from "../workspace/private.ts";
import type { Hooks, Provider } from "../providers/index.ts";
import { claudeMcpApproval, LOCAL_SETTINGS } from "./approval.ts";
import { configToChange, linkOnTheWay } from "./config.ts";
import { editJson, freshJson } from "./json-edit.ts";
import type { Line } from "./report.ts";

type InstallReport = { lines: Line[] };

const KEY = "enabledMcpjsonServers";

async function tracked(root: string, rel: string): Promise<boolean> {
  const run = await git(root, ["ls-files", "--error-unmatch", "--", rel]);
  return run.ok;
}

/** git ignores the file in this clone: by any ignore rule already, or by a line in .git/info/exclude. */
async function ignoredHere(ws: Workspace, rel: string): Promise<string | undefined> {
  const root = ws.position.worktree;
  if ((await git(root, ["check-ignore", "-q", "--no-index", rel])).ok) return undefined;
  const info = join(ws.position.commonDir, "info");
  const exclude = join(info, "exclude");
  if (linkOnTheWay(ws.position.commonDir, "info/exclude")) return undefined;
  ensureDir(info);
  const text = readIfExists(exclude) ?? "";
  appendFileSync(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}/${rel}\n`);
  // The hooks remember that git ignores the local half against the ignore files, this one among them: asked again
  // now, while git is at hand, so a hook whose PATH has no git still writes.
  await requireIgnored(ws.position, ws.layer).catch(() => undefined);
  return `git ignores it in this clone (.git/info/exclude)`;
}

export async function approveMcp(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  report: InstallReport,
): Promise<void> {
  const m = provider.hooks.mcp;
  if (m?.approval !== "claude-mcpjson") return;
  const root = ws.position.worktree;
  const said = claudeMcpApproval(root, m.server);
  if (said.state === "rejected")
    return void report.lines.push({ path: LOCAL_SETTINGS, action: "left alone", note: said.reason });
  if (said.state === "approved")
    return void report.lines.push({ path: LOCAL_SETTINGS, action: "already present", note: said.reason });
  if (linkOnTheWay(root, LOCAL_SETTINGS) || (await tracked(root, LOCAL_SETTINGS)))
    return void report.lines.push({
      path: LOCAL_SETTINGS,
      action: "left alone",
      note: `git tracks it (or it is a link), so it is not yours alone: ${said.reason}`,
    });
  const path = join(root, LOCAL_SETTINGS);
  const settings = configToChange(root, LOCAL_SETTINGS, "capture install");
  const list = settings ? settings[KEY] : undefined;
  const text = settings
    ? editJson(
        readIfExists(path)!,
        Array.isArray(list)
          ? [{ path: [KEY, list.length], value: m.server, insert: true }]
          : [{ path: [KEY], value: [m.server] }],
      )
    : freshJson({ [KEY]: [m.server] });
  ensureDir(join(root, ".claude"));
  writeFileAtomic(path, text, settings ? statSync(path).mode & 0o777 : 0o644);
  const ignored = await ignoredHere(ws, LOCAL_SETTINGS);
  report.lines.push({
    path: LOCAL_SETTINGS,
    action: settings ? "merged" : "written",
    note:
      `your approval of the ${m.server} MCP server (what choosing "Use this MCP server" in Claude Code's dialog ` +
      `writes), so Claude Code does not ask${ignored ? `; ${ignored}` : ""}`,
  });
}

/** Uninstall: our server's approval taken out; a file that held only that goes. */
export function withdrawMcp(ws: Workspace, provider: Provider & { hooks: Hooks }, report: InstallReport): void {
  const m = provider.hooks.mcp;
  if (m?.approval !== "claude-mcpjson") return;
  const root = ws.position.worktree;
  if (linkOnTheWay(root, LOCAL_SETTINGS)) return;
  const settings = configToChange(root, LOCAL_SETTINGS, "capture uninstall");
  const list = settings?.[KEY];
  if (!settings || !Array.isArray(list) || !list.includes(m.server)) return;
  const path = join(root, LOCAL_SETTINGS);
  const rest = list.filter((s) => s !== m.server);
  const others = Object.keys(settings).filter((k) => k !== KEY);
  const gone = rest.length === 0 && others.length === 0;
  if (gone) unlinkSync(path);
  else {
    const edit =
      rest.length === 0 ? { path: [KEY], value: undefined } : { path: [KEY, list.indexOf(m.server)], value: undefined };
    writeFileAtomic(path, editJson(readIfExists(path)!, [edit]), statSync(path).mode & 0o777);
  }
  report.lines.push({
    path: LOCAL_SETTINGS,
    action: gone ? "removed" : "rewritten",
    note: `the approval of the ${m.server} MCP server taken out; nothing else changed`,
  });
}
