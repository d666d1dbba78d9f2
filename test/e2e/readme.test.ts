// The README's first screen, followed as written by a person in a fresh HOME, offline: install.sh from the release
// folder this checkout builds (`npm run build:release`; its archive checked against SHA256SUMS) into ~/.local/bin,
// then the block run in their repository with only that binary on the PATH. It ends with a clean tree; a session that
// leaves a handover, as Claude Code's hooks run it, hands the next one its Next Action; committing the session's
// record "with the work" leaves the tree clean again.
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";
import { Repo, scratch } from "../support/repo.ts";

const RELEASE = join(PROJECT, "dist", "release");
const VERSION = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).version as string;
const HOST = process.platform === "linux" ? `linux-${process.arch}` : undefined;

/** The README's fenced `sh` blocks, in order. */
function blocks(): string[] {
  const text = readFileSync(join(PROJECT, "README.md"), "utf8");
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Commands as a shell runs them, comments and all. */
function run(cwd: string, script: string, env: Record<string, string>, input?: string) {
  return spawnSync("bash", ["-euo", "pipefail", "-c", script], { cwd, env, input, encoding: "utf8" });
}

describe.if(HOST !== undefined)("the README's first screen, as a person follows it", () => {
  beforeAll(() => {
    // What `npm run build:release` leaves (the release test builds the same): built here when missing or older than
    // this checkout's binary.
    const archive = join(RELEASE, `majordomus-${HOST}.tar.xz`);
    const fresh =
      existsSync(archive) &&
      existsSync(join(RELEASE, "install.sh")) &&
      statSync(archive).mtimeMs >= statSync(join(PROJECT, "dist", "majordomus")).mtimeMs;
    if (!fresh) {
      const build = spawnSync(process.execPath, ["run", "build.ts", "--target", "host"], {
        cwd: PROJECT,
        encoding: "utf8",
        env: { ...process.env, XZ_OPT: "-0" },
      });
      if (build.status !== 0) throw new Error(`build:release failed: ${build.stderr}`);
    }
  }, 600_000);

  test("install.sh from dist/release into a fresh HOME, the repository wired and committed, a clean tree; the next session is handed the last one's Next Action", () => {
    const root = scratch("majordomus-readme-");
    try {
      const home = join(root, "home");
      mkdirSync(home);
      const env = {
        HOME: home,
        PATH: `${home}/.local/bin:/usr/local/bin:/usr/bin:/bin`,
        GIT_CONFIG_GLOBAL: join(root, "gitconfig"),
        GIT_CONFIG_NOSYSTEM: "1",
        TMPDIR: join(root, "tmp"),
        LANG: "C.UTF-8",
      };
      mkdirSync(env.TMPDIR);
      spawnSync("git", ["config", "--global", "user.name", "A Person"], { env });
      spawnSync("git", ["config", "--global", "user.email", "person@example.invalid"], { env });
      spawnSync("git", ["config", "--global", "init.defaultBranch", "main"], { env });

      const [install, wire] = blocks();
      expect(install).toContain("sh install.sh --from dist/release");
      // The install block's second line as written, from the checkout (its first, npm ci and the build, is done above).
      const installed = run(PROJECT, install!.split("\n")[1]!, env);
      expect(installed.status, installed.stderr).toBe(0);
      expect(installed.stderr).toContain(`installed ${home}/.local/bin/majordomus (${VERSION})`);

      // Their repository, with work of its own; then the README's block exactly as written.
      const repo = new Repo(join(root, "your-repo"));
      mkdirSync(repo.dir);
      run(repo.dir, "git init -q && echo 'export const a = 1;' > index.ts && git add . && git commit -qm start", env);
      expect(wire).toMatch(/^cd your-repo\n/);
      const wired = run(root, wire!, env);
      expect(wired.status, `${wired.stdout}\n${wired.stderr}`).toBe(0);
      expect(wired.stdout).toMatch(/claude-code:session +verified/);
      expect(run(repo.dir, "git status --porcelain", env).stdout).toBe("");

      // A session, as Claude Code's hooks run it: its agent writes its own handover; then the next session starts.
      const shim = (name: string, payload: object) =>
        run(repo.dir, `.claude/hooks/${name}`, { ...env, CLAUDE_PROJECT_DIR: repo.dir }, JSON.stringify(payload));
      shim("majordomus-session-start", { session_id: "first", source: "startup", hook_event_name: "SessionStart" });
      const next = "Read greeting.json in src/config.ts and fall back to hi when it is missing.";
      const handed = run(
        repo.dir,
        "majordomus handover",
        { ...env, CLAUDE_CODE_SESSION_ID: "first" },
        `# Objective\nA greeting.\n\n# Current State\nThe loader reads it.\n\n# Next Action\n${next}\n`,
      );
      expect(handed.status, handed.stderr).toBe(0);
      shim("majordomus-session-end", {
        session_id: "first",
        reason: "prompt_input_exit",
        hook_event_name: "SessionEnd",
      });
      const briefing = shim("majordomus-session-start", {
        session_id: "second",
        source: "startup",
        hook_event_name: "SessionStart",
      }).stdout;
      expect(briefing).toContain(`> ${next}`);
      expect(briefing).toMatch(/\(authored, same_worktree_same_branch, exact, fresh, \dm old\)/);
      // What the session left for git is its closed record, which the README says to commit with the work; our own
      // wiring never shows as changed.
      const left = run(repo.dir, "git status --porcelain", env).stdout.trim().split("\n");
      expect(
        left.every((l) => l.startsWith("?? .ai/repo/sessions/")),
        left.join("\n"),
      ).toBe(true);
      run(repo.dir, "git add .ai && git commit -qm 'the work, with its session record'", env);
      expect(run(repo.dir, "git status --porcelain", env).stdout).toBe("");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
