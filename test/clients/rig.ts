/**
 * Runs the real Claude Code client headless in a throwaway repository, against the mock API, with
 * HOME, temp and runtime folders inside the test's own folder: nothing of the machine's is read or
 * written, and nothing but 127.0.0.1 is reached.
 */
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered, ok } from "../support/layered.ts";
import { settled } from "../support/capture.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { ensureClient } from "./install.ts";
import { startMock, type Mock, type MockOptions } from "./mock-anthropic.ts";

export type ClientRun = { status: number | null; stdout: string; stderr: string; timedOut: boolean };

/** Client runs are given this long; a hung client is killed and the run fails. */
const RUN_TIMEOUT_MS = 90_000;

/**
 * Run a client to its end, asynchronously (its mock answers from this same process), in the
 * repository, with stdin closed; a hung client is killed. Then wait for the work its hooks handed off.
 */
export async function runClient(
  cmd: string[],
  repo: Repo,
  env: Record<string, string>,
  cwd = repo.dir,
): Promise<ClientRun> {
  const proc = Bun.spawn(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, RUN_TIMEOUT_MS);
  const [stdout, stderr, status] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  settled(repo);
  return { status, stdout, stderr, timedOut };
}

/** `capture install --provider <p>` in the repository and the wiring committed, as an adopter does; returns what it said on stderr. */
export function wire(repo: Repo, provider: string, paths: string[], env: Record<string, string>): string {
  const run = repo.mj(["capture", "install", "--provider", provider], { env });
  if (run.status !== 0) throw new Error(`capture install --provider ${provider}: ${run.stderr}`);
  repo.git("add", ...paths);
  repo.git("commit", "-q", "-m", `Wire majordomus into ${provider}`);
  return run.stderr;
}

export class ClaudeRig {
  readonly claude: string;
  readonly folder: string;
  readonly home: string;
  readonly repo: Repo;
  readonly mock: Mock;
  readonly debugLog: string;

  /** `wire`: install capture into a given repository too (a repository made without it is used as it is). */
  constructor(options: { repo?: Repo; mock?: MockOptions; capture?: boolean; wire?: boolean } = {}) {
    this.claude = ensureClient("claude-code");
    this.folder = scratch("majordomus-claude-");
    this.home = join(this.folder, "home");
    for (const d of ["home", "tmp", "run", "cache", "config", "state", "data"])
      mkdirSync(join(this.folder, d), { recursive: true, mode: 0o700 });
    this.debugLog = join(this.folder, "claude-debug.log");
    this.mock = startMock(options.mock);
    this.repo = options.repo ?? layered();
    if (options.capture !== false && (!options.repo || options.wire)) {
      ok(this.repo.mj(["capture", "install"]));
      this.repo.git("add", ".claude", ".mcp.json");
      this.repo.git("commit", "-q", "-m", "Wire majordomus into Claude Code");
    }
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** Mark the project trusted in this HOME, so the client loads the project's own mod. */
  trust(): void {
    const settings = {
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: ["dummy"], rejected: [] },
      projects: {
        [this.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] },
      },
    };
    writeFileSync(join(this.home, ".claude.json"), JSON.stringify(settings, null, 2));
    // The person's answer to the client's "New MCP server found in this project" dialog (the
    // interactive UI asks once per project; its answer lands in the project's untracked local settings).
    if (existsSync(join(this.repo.dir, ".mcp.json"))) {
      mkdirSync(join(this.repo.dir, ".claude"), { recursive: true });
      writeFileSync(
        join(this.repo.dir, ".claude", "settings.local.json"),
        JSON.stringify({ enabledMcpjsonServers: ["majordomus"] }, null, 2),
      );
    }
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(ANTHROPIC_|CLAUDE_CODE_OAUTH|CLAUDE_CODE_SESSION)/.test(k)) env[k] = v;
    return {
      ...env,
      PATH: `${dirname(BIN)}:${process.env.PATH}`,
      HOME: this.home,
      CLAUDE_CODE_TMPDIR: join(this.folder, "tmp"),
      XDG_RUNTIME_DIR: join(this.folder, "run"),
      // The client keeps logs (its MCP servers' among them) under XDG_CACHE_HOME: inside this folder too.
      XDG_CACHE_HOME: join(this.folder, "cache"),
      XDG_CONFIG_HOME: join(this.folder, "config"),
      XDG_STATE_HOME: join(this.folder, "state"),
      XDG_DATA_HOME: join(this.folder, "data"),
      TMPDIR: join(this.folder, "tmp"),
      ANTHROPIC_BASE_URL: this.mock.url,
      ANTHROPIC_API_KEY: "dummy",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
      MAJORDOMUS_LOG: "info",
      ...extra,
    };
  }

  /** `claude <args>` in the project, asynchronously (the mock answers from this same process). */
  async run(args: string[], extra: Record<string, string> = {}): Promise<ClientRun> {
    // The plugin subcommands take no debug file; a session does.
    const debug = args[0] === "plugin" ? [] : ["--debug-file", this.debugLog];
    return runClient([this.claude, ...args, ...debug], this.repo, this.env(extra));
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
  }
}

/** The client's interactive UI in tmux, for what `-p` cannot reach (a person typing /exit). */
export class TmuxSession {
  readonly name: string;
  /**
   * The tmux server's socket, in the test's own temp folder under a short name (a socket's path is limited to 107
   * bytes), removed with the session: nothing is left in the system's temp folder (tmux's default is /tmp/tmux-UID/).
   */
  private readonly socket: string;
  /** `argv`: the client and its arguments (default: Claude Code with its debug log). */
  constructor(
    rig: { folder: string; repo: Repo; env(extra?: Record<string, string>): Record<string, string> },
    extra: Record<string, string> = {},
    argv?: string[],
  ) {
    this.name = `mj-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
    this.socket = join(tmpdir(), `mj-${Math.random().toString(36).slice(2, 8)}.s`);
    // tmux does not pass our environment on: a wrapper script exports the isolated one itself.
    const wrapper = join(rig.folder, `${this.name}.sh`);
    const env = rig.env(extra);
    const command = argv ?? (rig instanceof ClaudeRig ? [rig.claude, "--debug-file", rig.debugLog] : []);
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}=${JSON.stringify(v)}`)
      .join("\n");
    writeFileSync(
      wrapper,
      `#!/bin/sh\n${exports}\ncd ${JSON.stringify(rig.repo.dir)}\nexec ${command.map((a) => JSON.stringify(a)).join(" ")}\n`,
      { mode: 0o755 },
    );
    const started = Bun.spawnSync([
      "tmux",
      "-S",
      this.socket,
      "new-session",
      "-d",
      "-s",
      this.name,
      "-x",
      "160",
      "-y",
      "45",
      wrapper,
    ]);
    if (started.exitCode !== 0) throw new Error(`tmux could not start: ${started.stderr.toString()}`);
    this.pid =
      Number(
        Bun.spawnSync(["tmux", "-S", this.socket, "list-panes", "-t", this.name, "-F", "#{pane_pid}"])
          .stdout.toString()
          .trim(),
      ) || undefined;
  }

  /** The client's process (the pane's): waited for at the end, so it writes nothing after the test's folder is gone. */
  private readonly pid: number | undefined;

  /** Wait for the prompt, type a first "say ok" and wait for its answer: a session that has had one turn. */
  async firstTurn(rig: ClaudeRig): Promise<boolean> {
    if (!(await this.until(() => this.screen().includes("❯"), 30_000))) return false;
    await Bun.sleep(1_000);
    this.type("say ok");
    const answered = await this.until(() => rig.mock.messages().length > 0 && this.screen().includes("ok"), 30_000);
    await Bun.sleep(1_000);
    return answered;
  }

  type(text: string): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "send-keys", "-t", this.name, "-l", text]);
    Bun.spawnSync(["tmux", "-S", this.socket, "send-keys", "-t", this.name, "Enter"]);
  }

  /** One named key (Enter, Down, Up, Escape), as a person presses it. */
  key(name: string): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "send-keys", "-t", this.name, name]);
  }

  screen(): string {
    return Bun.spawnSync(["tmux", "-S", this.socket, "capture-pane", "-p", "-t", this.name]).stdout.toString();
  }

  alive(): boolean {
    return Bun.spawnSync(["tmux", "-S", this.socket, "has-session", "-t", this.name]).exitCode === 0;
  }

  /** Poll until `done()` or the time is up; true when it happened. */
  async until(done: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (done()) return true;
      await Bun.sleep(200);
    }
    return done();
  }

  [Symbol.dispose](): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "kill-session", "-t", this.name]);
    rmSync(this.socket, { force: true });
    const alive = () => {
      try {
        return this.pid !== undefined && process.kill(this.pid, 0);
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) Bun.sleepSync(50);
    if (alive()) process.kill(this.pid!, "SIGKILL");
  }
}
