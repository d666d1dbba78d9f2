/**
 * Whether a client will run the installed hooks, asked of the client itself (Codex skips an untrusted hook without a
 * word). majordomus never grants that trust: it says what the person can do.
 */
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { readLayerFileIfExists } from "../lib/safe-read.ts";
import { dirname, join, sep } from "node:path";
import { onPath } from "../lib/path.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Hooks, Provider } from "../providers/index.ts";
import { env, environment } from "../lib/env.ts";
import { claudeTrusts } from "./approval.ts";
import { hookFilesBeside } from "./own-file.ts";

/** `pending`: the client has not asked yet, and will at its next start (Claude Code's trust dialog); not a refusal. */
export type Trust = { trusted: boolean; reason: string; steps: string[]; pending?: boolean };

function converse(
  cmd: string,
  args: string[],
  cwd: string,
  lines: unknown[],
  done: (line: string) => boolean,
  ms: number,
): Promise<string[]> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ["pipe", "pipe", "ignore"], env: environment() });
    const got: string[] = [];
    let buffer = "";
    const finish = () => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      resolve(got);
    };
    const timer = setTimeout(finish, ms);
    child.stdout!.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        got.push(line);
        if (done(line)) return finish();
      }
    });
    child.once("error", finish);
    child.once("exit", finish);
    child.stdin!.write(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  });
}

type CodexHook = { key: string; command: string; currentHash: string; trustStatus: string; source: string };

/** The hooks `codex app-server` lists for the checkout, or undefined when it gave no answer. */
async function codexHookList(codex: string, worktree: string): Promise<CodexHook[] | undefined> {
  const lines = await converse(
    codex,
    ["app-server"],
    worktree,
    [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "majordomus", version: "1" } } },
      { jsonrpc: "2.0", method: "initialized" },
      { jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [worktree] } },
    ],
    (line) => line.includes('"id":2'),
    15_000,
  );
  const answer = lines.find((l) => l.includes('"id":2'));
  if (!answer) return undefined;
  const data = (JSON.parse(answer) as { result?: { data?: Array<{ hooks?: CodexHook[] }> } }).result?.data ?? [];
  return data.flatMap((d) => d.hooks ?? []);
}

/** Codex: the project and each hook's hash trusted, asked through `codex app-server` (hooks/list). */
async function codexHooks(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<Trust> {
  const codex = onPath(provider.hooks.executable ?? "codex", { outside: ws.position.worktree });
  const config = "~/.codex/config.toml (or $CODEX_HOME/config.toml)";
  const trustProject =
    `trust the project once: \`codex exec --trust -C ${ws.position.worktree} "hello"\`, or ` +
    `add to ${config}:\n  [projects."${ws.position.worktree}"]\n  trust_level = "trusted"`;
  if (!codex)
    return {
      trusted: false,
      reason: "codex is not on PATH, so whether it trusts these hooks is unknown",
      steps: [
        trustProject,
        "then run `majordomus capture status`, which asks Codex which hooks it still does not trust",
      ],
    };
  const listed = await codexHookList(codex, ws.position.worktree);
  if (!listed) return { trusted: false, reason: "codex app-server gave no hooks/list answer", steps: [trustProject] };
  const ours = listed.filter((h) => Object.values(provider.hooks.events).some((e) => h.command.includes(e.shim)));
  if (ours.length === 0)
    return {
      trusted: false,
      reason: "Codex does not load this project's hooks: the project is not trusted",
      steps: [trustProject],
    };
  const untrusted = ours.filter((h) => h.trustStatus !== "trusted");
  if (untrusted.length === 0)
    return { trusted: true, reason: `Codex trusts the project and all ${ours.length} majordomus hook(s)`, steps: [] };
  const toml = untrusted.map((h) => `  [hooks.state."${h.key}"]\n  trusted_hash = "${h.currentHash}"`).join("\n");
  return {
    trusted: false,
    reason:
      `Codex will not run ${untrusted.length} of the ${ours.length} majordomus hook(s): their ` +
      `hashes are not trusted (it skips them without a word)`,
    steps: [`trust them, once you have read .codex/hooks.json and the shims: add to ${config}\n${toml}`],
  };
}

/** A client's JSON settings in the person's home, through the safe open; whole `//` comment lines skipped. */
function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const text = readLayerFileIfExists(path, { maxBytes: 16 * 1024 * 1024 })?.replace(/^[ \t]*\/\/.*$/gm, "");
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/** A folder as written in a client's config, without the trailing separators a person may type. */
const folderOf = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, "") || sep : p);

/** Gemini: hooks load only in a trusted folder, read where Gemini reads it. */
async function geminiFolder(ws: Workspace): Promise<Trust> {
  const folder = realpathSync(ws.position.worktree);
  const home = env("HOME") ?? "";
  const file = env("GEMINI_CLI_TRUSTED_FOLDERS_PATH") ?? join(home, ".gemini", "trustedFolders.json");
  const steps = [
    `trust the folder once: run \`gemini\` in ${folder} and choose to trust it, or add ` +
      `"${folder}": "TRUST_FOLDER" to ${file}`,
  ];
  if (env("GEMINI_CLI_TRUST_WORKSPACE") === "true")
    return { trusted: true, reason: "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder", steps: [] };
  const settings = readJson(join(home, ".gemini", "settings.json")) as
    { security?: { folderTrust?: { enabled?: boolean } } } | undefined;
  if (settings?.security?.folderTrust?.enabled === false)
    return { trusted: true, reason: "folder trust is off in Gemini's settings", steps: [] };
  const rules = Object.fromEntries(Object.entries(readJson(file) ?? {}).map(([k, v]) => [folderOf(k), v])) as Record<
    string,
    string
  >;
  for (let dir = folder; ; dir = dirname(dir)) {
    const rule = rules[dir];
    if (rule === "DO_NOT_TRUST") return { trusted: false, reason: `${file} says not to trust ${dir}`, steps };
    if (rule === "TRUST_FOLDER") return { trusted: true, reason: `${file} trusts ${dir}`, steps: [] };
    const parentOf = Object.entries(rules).find(([p, r]) => r === "TRUST_PARENT" && dirname(p) === dir);
    if (parentOf) return { trusted: true, reason: `${file} trusts ${dir} (the parent of ${parentOf[0]})`, steps: [] };
    if (dirname(dir) === dir) break;
  }
  return { trusted: false, reason: `Gemini does not trust ${folder}, so it loads none of its project hooks`, steps };
}

/** Every hook file Copilot loads in this checkout once trusted, ours named as ours (1.0.102 reads these, seen). */
function copilotHookFiles(ws: Workspace, provider: Provider & { hooks: Hooks }): string {
  const root = ws.position.worktree;
  const files = [
    ...(existsSync(join(root, provider.hooks.config)) ? [provider.hooks.config] : []),
    ...hookFilesBeside(root, provider.hooks.config),
    ...(existsSync(join(root, CLAUDE_FILE)) ? [CLAUDE_FILE] : []),
  ];
  const said = files.map((f) =>
    f === provider.hooks.config ? `${f} (majordomus's own)` : `${f} (not majordomus's: read it first)`,
  );
  return `Copilot then runs every hook in ${said.join(", ")}`;
}

/** Claude Code's hook file, which Copilot runs the hooks of too. */
const CLAUDE_FILE = ".claude/settings.json";

/** Copilot: repository hooks load only in a folder its config trusts (the folder or one above it). */
async function copilotFolder(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<Trust> {
  const folder = realpathSync(ws.position.worktree);
  const dir = env("COPILOT_HOME") ?? join(env("HOME") ?? "", ".copilot");
  const file = join(dir, "config.json");
  const steps = [
    `trust the folder once: run \`copilot\` in ${folder} and choose to trust it, or add ` +
      `"${folder}" to "trustedFolders" in ${file}; for one headless run, \`copilot -p … --trust-folder\`. ` +
      copilotHookFiles(ws, provider),
  ];
  const config = readJson(file) ?? {};
  const listed = [config.trustedFolders, config.trusted_folders].flatMap((v) => (Array.isArray(v) ? v : []));
  const covering = listed.find((p): p is string => {
    if (typeof p !== "string" || p === "") return false;
    const dir = folderOf(p);
    return folder === dir || folder.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  });
  return covering
    ? { trusted: true, reason: `${file} trusts ${covering}`, steps: [] }
    : { trusted: false, reason: `Copilot does not trust ${folder}, so it loads none of its repository hooks`, steps };
}

/** Claude Code: its first interactive start in a folder asks whether to trust it; a headless run does not ask. */
async function claudeFolder(ws: Workspace): Promise<Trust> {
  const said = claudeTrusts(ws.position.worktree);
  if (said.trusted) return { trusted: true, reason: said.reason, steps: [] };
  return {
    trusted: false,
    pending: true,
    reason: said.reason,
    steps: [
      'at Claude Code\'s first start here, choose "Yes, I trust this folder" (the preselected answer is "No, exit")',
    ],
  };
}

export const TRUST_CHECKS: Record<string, (ws: Workspace, provider: Provider & { hooks: Hooks }) => Promise<Trust>> = {
  "claude-folder": (ws) => claudeFolder(ws),
  "codex-hooks": codexHooks,
  "gemini-folder": (ws) => geminiFolder(ws),
  "copilot-folder": copilotFolder,
};

export async function trustOf(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<Trust | undefined> {
  const check = provider.hooks.trust ? TRUST_CHECKS[provider.hooks.trust] : undefined;
  return check ? check(ws, provider) : undefined;
}
