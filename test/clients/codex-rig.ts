/**
 * Runs the real Codex CLI headless (`codex exec`) in a throwaway repository after `init` and
 * `capture install --provider codex`, against the Responses-API mock, with HOME and CODEX_HOME
 * inside the test's own folder. Trust is granted the way a person would: the project trusted in
 * Codex's config, and the hook hashes `capture install` printed pasted into it.
 */
import { appendFileSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered, ok } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { clientBin, ensureClient } from "./install.ts";
import { startOpenAIMock, type OpenAIMock, type OpenAIMockOptions } from "./mock-openai.ts";
import { runClient, wire, type ClientRun } from "./rig.ts";

export class CodexRig {
  readonly codex: string;
  readonly folder: string;
  readonly home: string;
  readonly codexHome: string;
  readonly repo: Repo;
  readonly mock: OpenAIMock;
  /** What `capture install --provider codex` printed on stderr (the trust steps among it). */
  installed = "";

  constructor(options: { mock?: OpenAIMockOptions; repo?: Repo; install?: boolean; config?: string } = {}) {
    this.codex = ensureClient("codex");
    this.folder = scratch("majordomus-codex-");
    this.home = join(this.folder, "home");
    this.codexHome = join(this.home, ".codex");
    mkdirSync(this.codexHome, { recursive: true, mode: 0o700 });
    this.mock = startOpenAIMock(options.mock);
    writeFileSync(
      join(this.codexHome, "config.toml"),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "check_for_update_on_startup = false",
        ...(options.config ? [options.config] : []),
        "[analytics]",
        "enabled = false",
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = "${this.mock.url}"`,
        'env_key = "MAJORDOMUS_MOCK_KEY"',
        'wire_api = "responses"',
        "",
      ].join("\n"),
    );
    this.repo = options.repo ?? layered();
    if (options.install !== false) this.installed = wire(this.repo, "codex", [".codex"], this.env());
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** As a person would: trust the project, then paste the hook hashes `capture install` (asked again) prints. */
  trust(): void {
    appendFileSync(join(this.codexHome, "config.toml"), `\n[projects."${this.project}"]\ntrust_level = "trusted"\n`);
    const asked = ok(this.repo.mj(["capture", "install", "--provider", "codex"], { env: this.env() })).stderr;
    const toml = asked
      .split("\n")
      .filter((l) => /^\s+(\[hooks\.state\.|trusted_hash = )/.test(l))
      .map((l) => l.trim());
    if (toml.length === 0) throw new Error(`capture install printed no hook hashes to trust:\n${asked}`);
    appendFileSync(join(this.codexHome, "config.toml"), `\n${toml.join("\n")}\n`);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(OPENAI_|CODEX_)/.test(k)) env[k] = v;
    return {
      ...env,
      PATH: `${dirname(BIN)}:${dirname(clientBin("codex"))}:${process.env.PATH}`,
      HOME: this.home,
      CODEX_HOME: this.codexHome,
      MAJORDOMUS_MOCK_KEY: "dummy",
      MAJORDOMUS_LOG: "info",
      ...extra,
    };
  }

  /** `codex exec … <prompt>` in the project (stdin closed, as the client asks). */
  async run(args: string[], extra: Record<string, string> = {}): Promise<ClientRun> {
    return runClient(
      [this.codex, "exec", "--skip-git-repo-check", "-C", this.project, ...args],
      this.repo,
      this.env(extra),
    );
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
  }
}

/** The developer messages of a request (where Codex puts what a hook printed), as one text. */
export const developer = (body: Record<string, unknown> | undefined) =>
  ((body?.input ?? []) as Array<{ role?: string; content?: Array<{ text?: string }> }>)
    .filter((i) => i.role === "developer")
    .map((i) => (i.content ?? []).map((c) => c.text ?? "").join(""))
    .join("\n");
