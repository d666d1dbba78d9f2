/**
 * Deno, for the one suite that proves `src/` runs under it unchanged. It is not in package.json:
 * a plain `npm ci` stays ~90 MB smaller. `npm run setup:deno` (and CI) installs the pinned version
 * from npm into a cache outside the committed tree; without it the suite is skipped and says so.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { PROJECT } from "./env.ts";

export const DENO_VERSION = "2.9.6";
const DIR = join(process.env.MAJORDOMUS_TOOL_CACHE ?? join(PROJECT, ".cache", "tools"), "deno");
export const DENO = join(DIR, "node_modules", ".bin", "deno");

/** The cached Deno, when it is the pinned version. */
export function denoInstalled(): boolean {
  if (!existsSync(DENO)) return false;
  const run = spawnSync(DENO, ["--version"], { encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
  return /^deno (\S+)/.exec(run.stdout ?? "")?.[1] === DENO_VERSION;
}

export function ensureDeno(): string {
  if (denoInstalled()) return DENO;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(
    join(DIR, "package.json"),
    JSON.stringify({ name: "majordomus-tool-deno", private: true, allowScripts: { deno: true } }),
  );
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `deno@${DENO_VERSION}`], {
    cwd: DIR,
    encoding: "utf8",
  });
  if (npm.status !== 0) throw new Error(`npm install deno@${DENO_VERSION} failed:\n${npm.stderr}`);
  if (!denoInstalled()) throw new Error(`deno@${DENO_VERSION} installed, but ${DENO} --version does not say so`);
  return DENO;
}

if (import.meta.main) console.log(ensureDeno());
