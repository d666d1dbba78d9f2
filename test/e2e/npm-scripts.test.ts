// `npm ci --ignore-scripts && npm start` must work as `npm ci && npm start` does: every npm script
// starts Bun through test/support/bun.mjs, which finds the real binary when Bun's postinstall never
// replaced its placeholder. Proven on a node_modules laid out as npm leaves it with scripts off.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";
import { scratch } from "../support/repo.ts";

const PLACEHOLDER =
  "The 'bun.exe' file is a placeholder for the binary file, which\nis replaced by Bun's 'postinstall' script.\n";
const os = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform as string]!;
const arch = { x64: "x64", arm64: "aarch64" }[process.arch as string]!;

function layout(withPlatformPackage: boolean): string {
  const root = scratch("majordomus-npm-");
  mkdirSync(join(root, "test", "support"), { recursive: true });
  copyFileSync(join(PROJECT, "test", "support", "bun.mjs"), join(root, "test", "support", "bun.mjs"));
  mkdirSync(join(root, "node_modules", "bun", "bin"), { recursive: true });
  writeFileSync(join(root, "node_modules", "bun", "bin", "bun.exe"), PLACEHOLDER, { mode: 0o755 });
  if (withPlatformPackage) {
    const bin = join(root, "node_modules", "@oven", `bun-${os}-${arch}`, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, "bun"));
  }
  return root;
}

describe("npm scripts without install scripts", () => {
  test("the launcher runs the platform package's Bun when the placeholder was never replaced", () => {
    const root = layout(true);
    try {
      const run = spawnSync("node", [join(root, "test", "support", "bun.mjs"), "--version"], { encoding: "utf8" });
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe(Bun.version);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("with no Bun at all it says to run npm ci (exit 1), never runs the placeholder", () => {
    const root = layout(false);
    try {
      const run = spawnSync("node", [join(root, "test", "support", "bun.mjs"), "--version"], { encoding: "utf8" });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("run `npm ci`");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("every npm script that runs Bun goes through the launcher, and the reviewed install scripts are declared", () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8"));
    for (const [name, script] of Object.entries(pkg.scripts as Record<string, string>)) {
      for (const part of script.split("&&")) {
        const cmd = part
          .trim()
          .replace(/^[A-Z_]+=\S+ /, "")
          .split(" ")[0];
        expect(cmd, `${name}: ${part}`).not.toBe("bun");
      }
    }
    expect(pkg.allowScripts).toEqual({ bun: true });
  });
});
