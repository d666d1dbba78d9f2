/** Real git repositories in temp folders, and the compiled binary run as a process. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "./env.ts";

export type Run = { status: number | null; stdout: string; stderr: string };

export function scratch(prefix = "majordomus-"): string {
  return mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), prefix));
}

export function sh(
  cwd: string,
  cmd: string,
  args: string[],
  input?: string,
  env: Record<string, string | undefined> = {},
): Run {
  const run = spawnSync(cmd, args, { cwd, input, encoding: "utf8", env: { ...process.env, ...env } });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export class Repo {
  readonly dir: string;

  constructor(dir?: string) {
    this.dir = dir ?? scratch("majordomus-repo-");
  }

  static init(): Repo {
    const repo = new Repo();
    repo.git("init", "-q", "-b", "main");
    return repo;
  }

  git(...args: string[]): string {
    const run = sh(this.dir, "git", args);
    if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr}`);
    return run.stdout.trim();
  }

  commit(message = "change", file = "file.txt", content = `${message}\n`): string {
    mkdirSync(dirname(join(this.dir, file)), { recursive: true });
    writeFileSync(join(this.dir, file), content);
    this.git("add", file);
    this.git("commit", "-q", "-m", message);
    return this.git("rev-parse", "HEAD");
  }

  /** Run the compiled binary here. */
  mj(args: string[], options: { input?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): Run {
    return sh(options.cwd ?? this.dir, BIN, args, options.input, options.env);
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  [Symbol.dispose](): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
