/**
 * Runs the real GitHub Copilot CLI headless (`copilot -p`) in a throwaway repository after `init`
 * and `capture install --provider copilot`, offline against the Anthropic-API mock (its own
 * provider setting), with HOME inside the test's own folder. Trust is granted the way a person
 * would: the folder listed in Copilot's config file.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { clientUnpacked, ensureClient } from "./install.ts";
import { startMock, type Mock, type MockOptions } from "./mock-anthropic.ts";
import { runClient, wire, type ClientRun } from "./rig.ts";

export class CopilotRig {
  readonly copilot: string;
  readonly folder: string;
  readonly home: string;
  readonly repo: Repo;
  readonly mock: Mock;
  installed = "";

  constructor(options: { mock?: MockOptions; repo?: Repo; install?: boolean } = {}) {
    this.folder = scratch("majordomus-copilot-");
    this.home = join(this.folder, "home");
    for (const d of ["home", "tmp", "config", "state"])
      mkdirSync(join(this.folder, d), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.home, ".copilot"), { recursive: true, mode: 0o700 });
    this.copilot = ensureClient("copilot");
    this.mock = startMock(options.mock);
    this.repo = options.repo ?? layered();
    if (options.install !== false) this.installed = wire(this.repo, "copilot", [".github"], this.env());
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** As a person would, once: the folder listed in Copilot's config (what its trust dialog writes). */
  trust(folders: string[] = [this.project]): void {
    writeFileSync(join(this.home, ".copilot", "config.json"), JSON.stringify({ trustedFolders: folders }));
  }

  /** Copilot's own record of a session: its events, one JSON object a line. */
  events(sessionId: string): Array<Record<string, unknown>> {
    const file = join(this.home, ".copilot", "session-state", sessionId, "events.jsonl");
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {}
    return text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(COPILOT_|GH_|GITHUB_|ANTHROPIC_)/.test(k)) env[k] = v;
    return {
      ...env,
      PATH: `${dirname(BIN)}:${process.env.PATH}`,
      HOME: this.home,
      TMPDIR: join(this.folder, "tmp"),
      XDG_CACHE_HOME: clientUnpacked("copilot"),
      XDG_CONFIG_HOME: join(this.folder, "config"),
      XDG_STATE_HOME: join(this.folder, "state"),
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_TYPE: "anthropic",
      COPILOT_PROVIDER_BASE_URL: this.mock?.url ?? "http://127.0.0.1:9",
      COPILOT_PROVIDER_API_KEY: "test",
      COPILOT_MODEL: "claude-sonnet-4-5",
      MAJORDOMUS_LOG: "info",
      ...extra,
    };
  }

  /** `copilot <args>` in the project, tools allowed (headless), stdin closed. */
  async run(args: string[], extra: Record<string, string> = {}, cwd = this.project): Promise<ClientRun> {
    return runClient([this.copilot, ...args, "--allow-all-tools"], this.repo, this.env(extra), cwd);
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
    // Copilot's HOME holds its session state and logs: gone with the test.
    rmSync(this.folder, { recursive: true, force: true });
  }
}
