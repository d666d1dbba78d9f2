/** Repositories with a lot of history, built with majordomus's own modules and binary. */
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { IDENTITY_FILE } from "../../src/repo/identity.ts";
import { redactShapes } from "../../src/lib/redact.ts";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { scratch } from "../support/repo.ts";

function run(cwd: string, cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
}

export function emptyRepo(): string {
  const dir = scratch("majordomus-bench-");
  run(dir, "git", ["init", "-q", "-b", "main"]);
  run(dir, "git", ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "start"]);
  run(dir, BIN, ["init"]);
  return dir;
}

/**
 * Append `count` well-formed lines in the ledger's own format. Written in one go rather than
 * through 10,000 processes; `history --validate` on the result must pass (checked here).
 */
export function withLedgerLines(dir: string, count: number): string {
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).stdout.trim();
  const start = Date.parse("2026-01-01T00:00:00Z");
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const ts = new Date(start + i * 60_000).toISOString();
    lines.push(
      JSON.stringify({
        ts,
        event: "layer.initialized",
        head,
        branch: "main",
        by: "majordomus/bench",
        mode: "extend",
        created: i % 7,
      }),
    );
  }
  appendFileSync(join(dir, ".ai", "local", "state", "ledger.jsonl"), `${lines.join("\n")}\n`);
  run(dir, BIN, ["history", "--validate"]);
  return dir;
}

/**
 * Publish `count` handovers and `count` checkpoints through the records module itself (the same
 * code the binary runs), a minute apart, so the folders look like months of sessions. `legacy`
 * writes them as a majordomus from before repository identities did (the common dir's path as
 * the repository id, no identity file), so an older binary resolves them too.
 */
export async function withRecords(dir: string, count: number, options: { legacy?: boolean } = {}): Promise<string> {
  const { workspace } = await import("../../src/workspace/workspace.ts");
  const { publish, storeOf } = await import("../../src/records/store.ts");
  const { RECORD_KINDS } = await import("../../src/records/kinds.ts");
  const ctx = await workspace(dir);
  const start = Date.parse("2026-06-01T00:00:00Z");
  const body =
    "# Objective\nKeep going.\n\n# Current State\nSome of it works.\n\n# Next Action\nWrite the next test.\n";
  for (let i = 0; i < count; i++) {
    for (const kind of [RECORD_KINDS.handover, RECORD_KINDS.checkpoint]) {
      const p = ctx.position;
      await publish(
        storeOf(ctx.layer, kind),
        {
          created_at: new Date(start + i * 60_000).toISOString(),
          how: "derived",
          task_id: "none",
          session: "none",
          repository_id: options.legacy ? p.commonDir : p.repositoryId,
          worktree: p.worktree,
          branch: p.branch,
          head: p.head,
          working_tree: "clean",
          changed_files: [],
        },
        redactShapes(kind.name === "handover" ? body : "Progress: steady.\n"),
        [],
      );
    }
  }
  if (options.legacy) rmSync(join(ctx.position.commonDir, IDENTITY_FILE), { force: true });
  return dir;
}

/** Capture installed, as an adopter's repository has it. */
export function withCapture(dir: string): string {
  run(dir, BIN, ["capture", "install"]);
  run(dir, "git", ["add", ".ai", ".gitignore", ".claude", ".mcp.json"]);
  run(dir, "git", ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "layer"]);
  return dir;
}

/** `count` closed session records and `count` archived prompts, in their real formats. */
export function withSessionsAndPrompts(dir: string, count: number): string {
  const sessions = join(dir, ".ai", "repo", "sessions");
  const prompts = join(dir, ".ai", "local", "prompts");
  const start = Date.parse("2026-06-01T00:00:00Z");
  for (let i = 0; i < count; i++) {
    const at = new Date(start + i * 3_600_000).toISOString();
    const id = `s-bench-${String(i).padStart(5, "0")}`;
    writeFileSync(
      join(sessions, `${at.replace(/[-:.]/g, "")}--${id}.md`),
      `---\nschema: session/v1\nsession_id: ${id}\nprovider: claude-code\nprovider_session: bench-${i}\nopened_by: hook\nworker: none\nopened_at: "${at}"\nclosed_at: "${at}"\noutcome: interrupted\nbranch: main\nstart_head: NONE\nend_head: NONE\ncommits: []\nchanged_files: []\ntasks: []\ncheckpoints: []\nhandovers: []\ndecisions: []\nquestions: []\n---\n\n# What Happened\n\nBench.\n`,
    );
    writeFileSync(
      join(prompts, `bench-${i}.json`),
      `${JSON.stringify({ schema: "prompt/v1", captured_at: at, provider: "claude-code", prompt_id: `bench-${i}`, provider_session: `bench-${i}`, episode: null, episode_link: "orphan", branch: "main", head: "NONE", bytes: 5, sha256: "0".repeat(64), text: "bench" }, null, 2)}\n`,
      { mode: 0o600 },
    );
  }
  // As in an adopter's repository, the shared records are committed.
  run(dir, "git", ["add", ".ai/repo/sessions"]);
  run(dir, "git", ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "session records"]);
  return withSettledIndex(dir);
}

/**
 * Files committed in the second the index was written are "racily clean" to git: each `git status`
 * reads them again until a later one writes the index back. The hooks never write it (they run git
 * with GIT_OPTIONAL_LOCKS=0, so that they never hold the person's index lock), so on a fixture
 * written in one go every hook would re-read 10,000 files, which an adopter's repository, where
 * the person's own git writes the index now and then, does not. Once the clock has moved on, one
 * plain `git status` writes it, as theirs would.
 */
function withSettledIndex(dir: string): string {
  Bun.sleepSync(1_100);
  run(dir, "git", ["status", "--porcelain"]);
  return dir;
}
