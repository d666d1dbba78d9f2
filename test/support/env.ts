/**
 * Test isolation: HOME, XDG folders, temp dir and git's global config all point into one
 * scratch folder, so no test reads or writes the developer's own files or config.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const PROJECT = resolve(import.meta.dirname, "..", "..");
export const BIN = join(PROJECT, "dist", "majordomus");

/** Everything a test run makes lives under the folder returned; the preload removes it after the last test file. */
export function isolate(): string {
  const home = mkdtempSync(join(tmpdir(), "majordomus-test-home-"));
  const gitconfig = join(home, ".gitconfig");
  writeFileSync(
    gitconfig,
    "[user]\n\tname = Test Person\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
  );
  for (const dir of ["config", "cache", "data", "state", "tmp"]) mkdirSync(join(home, dir), { recursive: true });
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_STATE_HOME: join(home, "state"),
    TMPDIR: join(home, "tmp"),
    GIT_CONFIG_GLOBAL: gitconfig,
    GIT_CONFIG_NOSYSTEM: "1",
    MAJORDOMUS_LOG: "warn",
  });
  for (const key of [
    "MAJORDOMUS_NOW",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "CLAUDE_CODE_SESSION_ID",
    "MAJORDOMUS_PROVIDER_SESSION",
    // Set when the suite runs inside Copilot's agent: its hook calls are told apart by it.
    "COPILOT_CLI",
  ])
    delete process.env[key];
  return home;
}
