/**
 * Runs the real Gemini CLI headless (`gemini -p`) in a throwaway repository after `init` and
 * `capture install --provider gemini`, against the Gemini-API mock, with HOME inside the test's
 * own folder. Trust is granted the way a person would: the folder trusted in Gemini's trust file.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered } from "../support/layered.ts";
import { settled } from "../support/capture.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { ensureClient } from "./install.ts";
import { startGeminiMock, type GeminiMock, type GeminiMockOptions } from "./mock-gemini.ts";
import type { ClientRun } from "./rig.ts";

const RUN_TIMEOUT_MS = 90_000;

export class GeminiRig {
  readonly gemini: string;
  readonly folder: string;
  readonly home: string;
  readonly repo: Repo;
  readonly mock: GeminiMock;
  installed = "";

  constructor(options: { mock?: GeminiMockOptions; repo?: Repo; install?: boolean } = {}) {
    this.gemini = ensureClient("gemini");
    this.folder = scratch("majordomus-gemini-");
    this.home = join(this.folder, "home");
    mkdirSync(join(this.home, ".gemini"), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(this.home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, general: { enableAutoUpdate: false, enableAutoUpdateNotification: false }, privacy: { usageStatisticsEnabled: false } }),
    );
    this.mock = startGeminiMock(options.mock);
    this.repo = options.repo ?? layered();
    if (options.install !== false) {
      const run = this.repo.mj(["capture", "install", "--provider", "gemini"], { env: this.env() });
      if (run.status !== 0) throw new Error(`capture install --provider gemini: ${run.stderr}`);
      this.installed = run.stderr;
      this.repo.git("add", ".gemini");
      this.repo.git("commit", "-q", "-m", "Wire majordomus into Gemini");
    }
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** As a person would, once: trust this folder in Gemini's trust file (what its trust dialog writes). */
  trust(): void {
    writeFileSync(join(this.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [this.project]: "TRUST_FOLDER" }));
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(GEMINI_|GOOGLE_)/.test(k)) env[k] = v;
    return { ...env, PATH: `${dirname(BIN)}:${process.env.PATH}`, HOME: this.home, GEMINI_API_KEY: "dummy", GOOGLE_GEMINI_BASE_URL: this.mock.url, MAJORDOMUS_LOG: "info", ...extra };
  }

  /** `gemini <args>` in the project (the workspace is the working directory; stdin closed). */
  async run(args: string[], extra: Record<string, string> = {}): Promise<ClientRun> {
    const proc = Bun.spawn([this.gemini, ...args], { cwd: this.project, env: this.env(extra), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill("SIGKILL");
    }, RUN_TIMEOUT_MS);
    const [stdout, stderr, status] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    settled(this.repo);
    return { status, stdout, stderr, timedOut };
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
  }
}
