/**
 * Where each client keeps its transcripts: the one folder majordomus opens a client's transcript from, never through
 * a link into or out of it (lib/safe-read.ts openUnder). Seen in Claude Code 2.1.332, Codex 0.171.0, Gemini 0.61.0,
 * Copilot 1.0.102 and opencode 1.18.33, each under HOME unless its variable moves it.
 */
import { join } from "node:path";
import { clientEnv, env } from "../lib/env.ts";

const ROOTS: Record<string, { env?: string; home: string; path: string }> = {
  "claude-code": { env: "CLAUDE_CONFIG_DIR", home: ".claude", path: "projects" },
  codex: { env: "CODEX_HOME", home: ".codex", path: "sessions" },
  gemini: { home: ".gemini", path: "tmp" },
  copilot: { env: "COPILOT_HOME", home: ".copilot", path: "session-state" },
  // opencode's store (SQLite), under XDG_DATA_HOME: read-only, through transcript/opencode.ts.
  opencode: { env: "XDG_DATA_HOME", home: ".local/share", path: "opencode" },
};

export function transcriptRoot(provider: string): string | undefined {
  const row = ROOTS[provider];
  if (!row) return undefined;
  const moved = row.env ? clientEnv(row.env) : undefined;
  return join(moved || join(env("HOME") ?? "", row.home), row.path);
}
