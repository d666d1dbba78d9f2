/**
 * The real coding clients, installed from npm into a cache outside the committed tree, pinned to
 * the versions the payload fixtures were captured from. Idempotent: a cache holding the pinned
 * version is used as it is.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { PROJECT } from "../support/env.ts";
import type { ClientId } from "../../src/providers/index.ts";

export const CLIENTS = {
  "claude-code": { pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.171.0", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  copilot: { pkg: "@github/copilot", version: "1.0.102", bin: "copilot" },
  opencode: { pkg: "opencode-ai", version: "1.18.33", bin: "opencode" },
} as const satisfies Record<ClientId, { pkg: string; version: string; bin: string }>;

export type ClientName = keyof typeof CLIENTS;

export const CACHE = process.env.MAJORDOMUS_CLIENT_CACHE ?? join(PROJECT, ".cache", "clients");

export function clientBin(name: ClientName): string {
  return join(CACHE, name, "node_modules", ".bin", CLIENTS[name].bin);
}

/**
 * What a client unpacks of itself on its first run (Copilot: 235 MB of its runtime), kept beside
 * its install and shared by every test, as XDG_CACHE_HOME; a test's HOME and temp stay its own.
 */
export function clientUnpacked(name: ClientName): string {
  return join(CACHE, name, "unpacked");
}

function installedVersion(name: ClientName): string | undefined {
  const bin = clientBin(name);
  if (!existsSync(bin)) return undefined;
  // Even --version writes to HOME: a throwaway one, gone afterwards.
  const home = mkdtempSync(join(tmpdir(), "majordomus-client-version-"));
  const env = { ...process.env, HOME: home, XDG_CACHE_HOME: clientUnpacked(name), DISABLE_AUTOUPDATER: "1" };
  const run = spawnSync(bin, ["--version"], { encoding: "utf8", env });
  rmSync(home, { recursive: true, force: true });
  // `2.1.332 (Claude Code)`, `codex-cli 0.171.0`: the first version-shaped word.
  return /\d+\.\d+\.\d+/.exec(run.stdout ?? "")?.[0];
}

export function ensureClient(name: ClientName): string {
  const row = CLIENTS[name];
  if (installedVersion(name) === row.version) return clientBin(name);
  const dir = join(CACHE, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `majordomus-client-${name}`, private: true }));
  const npm = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", `${row.pkg}@${row.version}`],
    { cwd: dir, encoding: "utf8" },
  );
  if (npm.status !== 0) throw new Error(`npm install ${row.pkg}@${row.version} failed:\n${npm.stderr}`);
  const got = installedVersion(name);
  if (got !== row.version) throw new Error(`${row.pkg} installed, but --version says ${got}, not ${row.version}`);
  return clientBin(name);
}

if (import.meta.main) {
  for (const name of Object.keys(CLIENTS) as ClientName[]) console.log(`${name}: ${ensureClient(name)}`);
}
