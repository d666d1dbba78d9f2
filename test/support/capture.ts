/** A supervised repository with capture installed, and the shims run the way the client runs them. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, PROJECT } from "./env.ts";
import { layered, ok } from "./layered.ts";
import { sh, type Repo, type Run } from "./repo.ts";

export const PAYLOADS = join(PROJECT, "test", "fixtures", "claude-code");
export const SHIMS = { prompt: ".claude/hooks/majordomus-capture", start: ".claude/hooks/majordomus-session-start", compact: ".claude/hooks/majordomus-session-compact", end: ".claude/hooks/majordomus-session-end" } as const;

/** The environment a shim sees: majordomus on PATH, as an adopter who installed the binary has it. */
export function hookEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${dirname(BIN)}:${process.env.PATH}`, ...extra };
}

export function captured(): Repo {
  const repo = layered();
  ok(repo.mj(["capture", "install"]));
  repo.git("add", ".claude");
  repo.git("commit", "-q", "-m", "Wire majordomus into Claude Code");
  return repo;
}

export function fire(repo: Repo, shim: keyof typeof SHIMS, payload: Record<string, unknown> | string, env: Record<string, string> = {}): Run {
  const input = typeof payload === "string" ? payload : JSON.stringify(payload);
  return sh(repo.dir, join(repo.dir, SHIMS[shim]), [], input, hookEnv(env));
}

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PAYLOADS, name), "utf8"));
}

export function sessionFiles(repo: Repo): string[] {
  return readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
}

export function openKeys(repo: Repo): string[] {
  try {
    return readdirSync(repo.path(".ai/local/state/sessions-open")).filter((f) => f.endsWith(".yaml"));
  } catch {
    return [];
  }
}
