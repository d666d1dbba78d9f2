/**
 * Runs the real Gemini CLI headless (`gemini -p`) in a throwaway repository after `init` and
 * `capture install --provider gemini`, against the Gemini-API mock, with HOME inside the test's
 * own folder. Trust is granted the way a person would: the folder trusted in Gemini's trust file.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { layered } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";
import { ensureClient } from "./install.ts";
import { startGeminiMock, type GeminiMock, type GeminiMockOptions } from "./mock-gemini.ts";
import { runClient, wire, type ClientRun } from "./rig.ts";

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
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
      }),
    );
    this.mock = startGeminiMock(options.mock);
    this.repo = options.repo ?? layered();
    if (options.install !== false) this.installed = wire(this.repo, "gemini", [".gemini"], this.env());
  }

  get project(): string {
    return realpathSync(this.repo.dir);
  }

  /** As a person would, once: trust this folder in Gemini's trust file (what its trust dialog writes). */
  trust(): void {
    writeFileSync(
      join(this.home, ".gemini", "trustedFolders.json"),
      JSON.stringify({ [this.project]: "TRUST_FOLDER" }),
    );
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(GEMINI_|GOOGLE_)/.test(k)) env[k] = v;
    return {
      ...env,
      PATH: `${dirname(BIN)}:${process.env.PATH}`,
      HOME: this.home,
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: this.mock.url,
      MAJORDOMUS_LOG: "info",
      ...extra,
    };
  }

  /** `gemini <args>` in the project (the workspace is the working directory; stdin closed). */
  async run(args: string[], extra: Record<string, string> = {}): Promise<ClientRun> {
    return runClient([this.gemini, ...args], this.repo, this.env(extra), this.project);
  }

  [Symbol.dispose](): void {
    this.mock.stop();
    this.repo[Symbol.dispose]();
  }
}
