/**
 * Every environment variable majordomus reads, one row each; only this module touches `process.env` (an architecture
 * rule), so an undeclared variable cannot be read. Our rows are documented in docs/commands.md (a test keeps them the
 * same).
 */

export type EnvRow = { meaning: string; unset: string; ours: boolean };

export const ENV = {
  MAJORDOMUS_NOW: {
    ours: true,
    meaning: "an ISO time used as now everywhere (tests, reproductions)",
    unset: "the wall clock",
  },
  MAJORDOMUS_LOG: {
    ours: true,
    meaning: "silent, error, warn, info or debug",
    unset: "info; warn for the hook commands",
  },
  MAJORDOMUS_HOOK_WORK: {
    ours: true,
    meaning: "foreground: compact and end hooks do their derived work themselves",
    unset: "handed to a detached worker",
  },
  MAJORDOMUS_TRACE: { ours: true, meaning: "1: phase and git timings on stderr", unset: "off" },
  MAJORDOMUS_PROVIDER_SESSION: {
    ours: true,
    meaning: "the client session this process belongs to",
    unset: "the client's own variable (CLAUDE_CODE_SESSION_ID)",
  },
  MAJORDOMUS_DRY_RUN: {
    ours: true,
    meaning: "1: capture session parses and says what it would do",
    unset: "it does it",
  },
  MAJORDOMUS_CAPTURE_DIR: {
    ours: true,
    meaning: "capture prompt archives there (capture status's self-test)",
    unset: "the layer's prompts folder",
  },
  HOME: { ours: false, meaning: "the person's home", unset: "the OS's answer" },
  XDG_CONFIG_HOME: { ours: false, meaning: "git's global ignore file lives under it", unset: "$HOME/.config" },
  PATH: { ours: false, meaning: "where git and majordomus are looked up (untrusted entries dropped)", unset: "none" },
  USER: { ours: false, meaning: "a task's and an episode's owner", unset: "USERNAME, else unknown" },
  USERNAME: { ours: false, meaning: "the owner on Windows", unset: "unknown" },
  GIT_DIR: {
    ours: false,
    meaning: "git's own override: the repository is then git's answer",
    unset: "found from the folder",
  },
  GIT_WORK_TREE: { ours: false, meaning: "git's own override, as GIT_DIR", unset: "found from the folder" },
  GIT_INDEX_FILE: {
    ours: false,
    meaning: "git's own override: git alone is asked what it tracks",
    unset: "<git dir>/index",
  },
  COPILOT_HOME: {
    ours: false,
    meaning: "Copilot's folder: its config (trusted folders) and session state",
    unset: "$HOME/.copilot",
  },
  CLAUDE_CONFIG_DIR: { ours: false, meaning: "Claude Code's configuration folder", unset: "$HOME/.claude" },
  GEMINI_CLI_TRUSTED_FOLDERS_PATH: {
    ours: false,
    meaning: "Gemini's trust file",
    unset: "$HOME/.gemini/trustedFolders.json",
  },
  GEMINI_CLI_TRUST_WORKSPACE: {
    ours: false,
    meaning: "true: Gemini trusts every folder",
    unset: "its trust file decides",
  },
  BUN_JSC_useJIT: { ours: false, meaning: "the engine's JIT switch, set by the shims", unset: "the JIT on" },
  BUN_JSC_useFTLJIT: {
    ours: false,
    meaning: "the switch of the engine's last JIT tier, set by doctor's first run",
    unset: "the tier on",
  },
} as const satisfies Record<string, EnvRow>;

export type EnvName = keyof typeof ENV;

export function env(name: EnvName): string | undefined {
  return process.env[name];
}

/** A variable the providers table names for a client: the table declares those. */
export function clientEnv(name: string): string | undefined {
  return process.env[name];
}

export function environment(): Record<string, string | undefined> {
  return process.env;
}

export function setEnv(name: EnvName, value: string): void {
  process.env[name] = value;
}
