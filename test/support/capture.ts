/** A supervised repository with capture installed, and the shims run the way the client runs them. */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { BIN, PROJECT } from "./env.ts";
import { layered, ok } from "./layered.ts";
import { scratch, sh, type Repo, type Run } from "./repo.ts";

export const PAYLOADS = join(PROJECT, "test", "fixtures", "claude-code");
export const SHIMS = {
  prompt: ".claude/hooks/majordomus-capture",
  start: ".claude/hooks/majordomus-session-start",
  compact: ".claude/hooks/majordomus-session-compact",
  end: ".claude/hooks/majordomus-session-end",
  limit: ".claude/hooks/majordomus-session-limit",
} as const;

/** The environment a shim sees: majordomus on PATH, as an adopter who installed the binary has it. */
export function hookEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${dirname(BIN)}:${process.env.PATH}`, ...extra };
}

export function captured(): Repo {
  const repo = layered();
  ok(repo.mj(["capture", "install"]));
  repo.git("add", ".claude", ".mcp.json");
  repo.git("commit", "-q", "-m", "Wire majordomus into Claude Code");
  return repo;
}

/** Hand-off tickets still out in a repository (a Repo or its folder): the derived work of hooks still running (hooks/handoff.ts). */
export function pendingWork(repo: Repo | string): string[] {
  const dir = typeof repo === "string" ? repo : repo.dir;
  try {
    return readdirSync(join(dir, ".ai/local/state/hook-work")).filter((f) => f.endsWith(".work"));
  } catch {
    return [];
  }
}

/** Wait until every handed-off piece of work in this checkout is done (what a person sees a moment later). */
export function settled(repo: Repo | string, timeoutMs = 15_000): void {
  const until = Date.now() + timeoutMs;
  while (pendingWork(repo).length > 0) {
    if (Date.now() > until)
      throw new Error(`handed-off hook work still pending after ${timeoutMs} ms: ${pendingWork(repo).join(", ")}`);
    Bun.sleepSync(2);
  }
}

/** Run a shim as the client does; by default also wait for the work it handed off (`handOff: "leave"` does not). */
export function fire(
  repo: Repo,
  shim: keyof typeof SHIMS,
  payload: Record<string, unknown> | string,
  env: Record<string, string> = {},
  options: { handOff?: "wait" | "leave" } = {},
): Run {
  const input = typeof payload === "string" ? payload : JSON.stringify(payload);
  const run = sh(repo.dir, join(repo.dir, SHIMS[shim]), [], input, hookEnv(env));
  if (options.handOff !== "leave") settled(repo);
  return run;
}

const REAL_GIT = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();

/** The hooks' environment with a `git` that first sleeps: a slow repository, or work still running when the test looks. */
export function slowGit(seconds: number): Record<string, string> {
  const dir = scratch("majordomus-slow-git-");
  writeFileSync(join(dir, "git"), `#!/bin/sh\nsleep ${seconds}\nexec ${REAL_GIT} "$@"\n`);
  chmodSync(join(dir, "git"), 0o755);
  return { PATH: `${dir}:${hookEnv().PATH}` };
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

export type StatusRow = { provider: string; aspect: string; state: string; reason: string };

/** One row of `capture status --json` (`args` e.g. `--no-verify`), or a failure naming what is missing. */
export function statusRow(
  repo: Repo,
  provider: string,
  aspect: string,
  env: Record<string, string> = hookEnv(),
  args: string[] = [],
): StatusRow {
  const run = repo.mj(["capture", "status", "--json", ...args], { env });
  const row = (JSON.parse(run.stdout).items as StatusRow[]).find((r) => r.provider === provider && r.aspect === aspect);
  if (!row) throw new Error(`capture status has no ${provider}:${aspect} row (exit ${run.status}): ${run.stderr}`);
  return row;
}
