/**
 * What Claude Code will do with what `capture install` wired, read where it keeps the person's answers (2.1.332,
 * seen): the folder trusted, and the project's MCP server approved (a rejection in any settings file wins).
 */
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { env } from "../lib/env.ts";
import { readLayerFileIfExists } from "../lib/safe-read.ts";
import { readConfig } from "./config.ts";

export type Approval = { state: "approved" | "pending" | "rejected"; reason: string };

/** The project's local settings: untracked, the person's own (Claude Code writes its dialog's answers there). */
export const LOCAL_SETTINGS = ".claude/settings.local.json";

/** ~/.claude.json can hold a heavy user's whole history of projects. */
const GLOBAL_MAX_BYTES = 64 * 1024 * 1024;

const home = () => env("HOME") ?? "";
const claudeDir = () => env("CLAUDE_CONFIG_DIR") ?? join(home(), ".claude");
const globalConfig = () => {
  const dir = env("CLAUDE_CONFIG_DIR");
  return dir ? join(dir, ".claude.json") : join(home(), ".claude.json");
};

function jsonAt(path: string, maxBytes = 1024 * 1024): Record<string, unknown> | undefined {
  try {
    const text = readLayerFileIfExists(path, { maxBytes });
    const data = text === undefined ? undefined : (JSON.parse(text) as unknown);
    return data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The person's project entries in ~/.claude.json, for this folder and each folder above it, nearest first. */
function projectEntries(worktree: string): Array<{ folder: string; entry: Record<string, unknown> }> {
  const projects = jsonAt(globalConfig(), GLOBAL_MAX_BYTES)?.projects as Record<string, unknown> | undefined;
  if (!projects || typeof projects !== "object") return [];
  let folder: string;
  try {
    folder = realpathSync(worktree);
  } catch {
    folder = worktree;
  }
  const out: Array<{ folder: string; entry: Record<string, unknown> }> = [];
  for (let dir = folder; ; dir = dirname(dir)) {
    const entry = projects[dir];
    if (entry && typeof entry === "object") out.push({ folder: dir, entry: entry as Record<string, unknown> });
    if (dirname(dir) === dir) return out;
  }
}

/** Whether the person has told Claude Code to trust this folder (or one above it). */
export function claudeTrusts(worktree: string): { trusted: boolean; reason: string } {
  const hit = projectEntries(worktree).find((p) => p.entry.hasTrustDialogAccepted === true);
  if (hit) return { trusted: true, reason: `${globalConfig()} trusts ${hit.folder}` };
  return {
    trusted: false,
    reason:
      `Claude Code has not been trusted in this folder yet: its first interactive start asks "Is this a project ` +
      `you created or one you trust?" with "No, exit" preselected; choose "Yes, I trust this folder"`,
  };
}

/** Every place Claude Code reads an MCP approval from, as it names them. */
function approvalSources(worktree: string): Array<{ where: string; data: Record<string, unknown> }> {
  const fromRepo = (rel: string) => {
    const read = readConfig(worktree, rel);
    return read.state === "object" ? [{ where: rel, data: read.data }] : [];
  };
  const user = jsonAt(join(claudeDir(), "settings.json"));
  return [
    ...fromRepo(LOCAL_SETTINGS),
    ...fromRepo(".claude/settings.json"),
    ...(user ? [{ where: join(claudeDir(), "settings.json"), data: user }] : []),
    ...projectEntries(worktree)
      .slice(0, 1)
      .map((p) => ({ where: `${globalConfig()} (the project ${p.folder})`, data: p.entry })),
  ];
}

const lists = (data: Record<string, unknown>, key: string, server: string) =>
  Array.isArray(data[key]) && (data[key] as unknown[]).includes(server);

export function claudeMcpApproval(worktree: string, server: string): Approval {
  const sources = approvalSources(worktree);
  const rejected = sources.find((s) => lists(s.data, "disabledMcpjsonServers", server));
  if (rejected)
    return {
      state: "rejected",
      reason:
        `Claude Code will not start it: ${rejected.where} lists "${server}" in disabledMcpjsonServers (the answer ` +
        `"Continue without using this MCP server"). To use it, take "${server}" out of that list, or run ` +
        `\`claude mcp reset-project-choices\` here and choose "Use this MCP server" at Claude Code's next start`,
    };
  const approved =
    sources.find((s) => lists(s.data, "enabledMcpjsonServers", server)) ??
    sources.find((s) => s.data.enableAllProjectMcpServers === true);
  if (approved) return { state: "approved", reason: `${approved.where} approves it` };
  return {
    state: "pending",
    reason:
      `not approved yet: Claude Code's next interactive start asks "New MCP server found in this project: ` +
      `${server}" with "Continue without using this MCP server" preselected; choose "Use this MCP server", or run ` +
      `\`majordomus capture install\` here, which records that approval in ${LOCAL_SETTINGS}`,
  };
}
