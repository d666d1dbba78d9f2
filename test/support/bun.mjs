#!/usr/bin/env node
/**
 * Runs the Bun that `npm ci` installed, whether or not npm ran its install script. Bun's package
 * ships a placeholder that its postinstall replaces with the real binary; with `--ignore-scripts`
 * (or an npm that blocks install scripts) the placeholder stays, and the real binary is still in
 * the platform package beside it (@oven/bun-<os>-<arch>[-baseline|-musl]). Every npm script goes
 * through here, so `npm ci --ignore-scripts && npm start` works as `npm ci && npm start` does.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const modules = join(root, "node_modules");
const exe = process.platform === "win32" ? "bun.exe" : "bun";
// The placeholder is a few hundred bytes of text; a real binary is tens of megabytes.
const real = (path) => existsSync(path) && statSync(path).size > 1_000_000;

function platformBinaries() {
  const os = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform];
  const arch = { x64: "x64", arm64: "aarch64" }[process.arch];
  const scope = join(modules, "@oven");
  if (!os || !arch || !existsSync(scope)) return [];
  return readdirSync(scope)
    .filter((name) => name.startsWith(`bun-${os}-${arch}`))
    .sort((a, b) => a.length - b.length)
    .map((name) => join(scope, name, "bin", exe));
}

// The Node the README states (package.json `engines`): an older one still runs these scripts, with one line saying so.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12))
  console.error(
    `note: this is Node ${process.versions.node}; majordomus's development needs Node 22.12 or newer (what its ` +
      "dependencies declare, so `npm ci` warned EBADENGINE): install Node 22 (nodejs.org, your package manager, or " +
      "`nvm install 22`), then `npm ci` again",
  );
const bin = [join(modules, "bun", "bin", "bun.exe"), ...platformBinaries()].find(real);
if (!bin) {
  console.error("bun is not installed here: run `npm ci` in this checkout first");
  process.exit(1);
}
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`could not start ${bin}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
