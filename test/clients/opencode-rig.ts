/**
 * Runs the real opencode headless (`opencode run`) in a throwaway repository after `init` and
 * `capture install --provider opencode`, against the Anthropic-API mock the Claude Code tests use,
 * with HOME and the four XDG folders inside the test's own folder. The model and the mock's address
 * are the person's own settings (`$XDG_CONFIG_HOME/opencode/opencode.json`), so the repository holds
 * only what `capture install` wrote.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { ensureClient } from "./install.ts";
import { startMock, type Mock, type MockOptions } from "./mock-anthropic.ts";
import { runClient, wire, type ClientRun } from "./rig.ts";

export const OPENCODE_MODEL = "anthropic/claude-sonnet-4-5";

export class OpencodeRig {
  readonly opencode: string;
  readonly folder: string;
  readonly home: string;
  readonly repo: Repo;
  readonly mock: Mock;
  installed = "";

  constructor(options: { mock?: MockOptions; repo?: Repo; install?: boolean; mockUrl?: string } = {}) {
    this.opencode = ensureClient("opencode");
    this.folder = scratch("majordomus-opencode-");
    this.home = join(this.folder, "home");
    for (const d of [".config/opencode", ".local/share", ".local/state", ".cache"])
      mkdirSync(join(this.home, d), { recursive: true });
    mkdirSync(join(this.folder, "tmp"));
    this.mock = startMock(options.mock);
    writeFileSync(
      join(this.home, ".config/opencode/opencode.json"),
      JSON.stringify({
        model: OPENCODE_MODEL,
        provider: { anthropic: { options: { baseURL: `${options.mockUrl ?? this.mock.url}/v1`, apiKey: "dummy" } } },
        autoupdate: false,
        share: "disabled",
      }),
    );
    this.repo = options.repo ?? layered();
    if (options.install !== false) this.installed = wire(this.repo, "opencode", [".opencode"], this.env());
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** opencode's own store of sessions, messages and parts. */
  get store(): string {
    return join(this.home, ".local/share/opencode/opencode.db");
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(ANTHROPIC_|OPENCODE|CLAUDE_CODE_SESSION)/.test(k)) env[k] = v;
    return {
      ...env,
      PATH: `${dirname(BIN)}:${process.env.PATH}`,
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, ".config"),
      XDG_DATA_HOME: join(this.home, ".local/share"),
      XDG_STATE_HOME: join(this.home, ".local/state"),
      XDG_CACHE_HOME: join(this.home, ".cache"),
      TMPDIR: join(this.folder, "tmp"),
      // opencode takes its project from PWD when it is set.
      PWD: this.project,
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      MAJORDOMUS_LOG: "info",
      ...extra,
    };
  }

  /** `opencode <args>` in the project (stdin closed). */
  async run(args: string[], extra: Record<string, string> = {}): Promise<ClientRun> {
    return runClient([this.opencode, ...args], this.repo, this.env(extra), this.project);
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
  }
}
