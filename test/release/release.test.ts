// The release pipeline on this machine, for its own platform: `build.ts --target <host>` makes the
// archive, SHA256SUMS and the npm packages; install.sh installs from a file:// base as it would from
// GitHub; the npm tarballs install into a scratch project and `npx majordomus` runs. (The other
// targets are cross-compiled the same way by `build.ts --all`.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";
import { scratch } from "../support/repo.ts";

const RELEASE = join(PROJECT, "dist", "release");
const HOST =
  process.platform === "linux" && process.arch === "x64"
    ? "linux-x64"
    : process.platform === "linux" && process.arch === "arm64"
      ? "linux-arm64"
      : undefined;
const VERSION = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).version as string;
const INSTALL = join(PROJECT, "install.sh");

function sh(cmd: string, args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) {
  return spawnSync(cmd, args, {
    cwd: options.cwd ?? PROJECT,
    encoding: "utf8",
    input: options.input,
    env: { ...process.env, ...options.env },
  });
}

let work: string;
beforeAll(() => {
  work = scratch("majordomus-release-");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.if(HOST !== undefined)("the release, for this machine", () => {
  test("archive and checksums; install.sh from a file:// base (also the baseline build); the npm tarballs installed and run", () => {
    // Fast compression for a test (xz reads XZ_OPT); the release workflow uses the default.
    // `npm run build:release` builds this: the machine's own target.
    const build = sh(process.execPath, ["run", "build.ts", "--target", "host"], { env: { XZ_OPT: "-0" } });
    expect(build.status, build.stderr).toBe(0);
    const archive = `majordomus-${HOST}.tar.xz`;
    const sums = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8");
    expect(sums).toMatch(new RegExp(`^[0-9a-f]{64}  ${archive}$`, "m"));
    expect(sums).toMatch(/^[0-9a-f]{64} {2}install\.sh$/m);
    expect(sh("sha256sum", ["-c", "SHA256SUMS"], { cwd: RELEASE }).status).toBe(0);

    // A mirror folder as the release page would serve it, with a baseline archive beside it.
    const mirror = join(work, "mirror");
    mkdirSync(mirror);
    for (const f of [archive, "SHA256SUMS", "install.sh"]) copyFileSync(join(RELEASE, f), join(mirror, f));
    const baseline = `majordomus-${HOST}-baseline.tar.xz`;
    copyFileSync(join(mirror, archive), join(mirror, baseline));
    writeFileSync(
      join(mirror, "SHA256SUMS"),
      `${sums}${sums
        .split("\n")
        .find((l) => l.endsWith(`  ${archive}`))!
        .replace(archive, baseline)}\n`,
    );

    // The release's install.sh carries the home package.json names (none yet: it downloads nothing by itself).
    expect(readFileSync(join(RELEASE, "install.sh"), "utf8")).toMatch(/^home=$/m);
    const into = join(work, "bin");
    const run = sh("sh", [
      join(mirror, "install.sh"),
      "--version",
      VERSION,
      "--into",
      into,
      "--from",
      `file://${mirror}`,
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`downloading file://${mirror}/majordomus-${HOST}`);
    expect(sh(join(into, "majordomus"), ["--version"]).stdout.trim()).toBe(VERSION);
    const old = sh("sh", [join(mirror, "install.sh"), "--into", join(work, "old")], {
      env: { MAJORDOMUS_DOWNLOAD_BASE: `file://${mirror}`, MAJORDOMUS_BASELINE: "1" },
    });
    expect(old.status, old.stderr).toBe(0);
    expect(old.stderr).toContain(`/${baseline}`);

    // A tampered archive is refused, and nothing is installed.
    writeFileSync(join(mirror, archive), "not the archive");
    const bad = sh("sh", [join(mirror, "install.sh"), "--into", join(work, "bad")], {
      env: { MAJORDOMUS_DOWNLOAD_BASE: `file://${mirror}` },
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("checksum mismatch");
    expect(existsSync(join(work, "bad", "majordomus"))).toBe(false);

    // npm: every package packed; installed from the tarballs in a scratch project; npx runs the binary.
    const npm = join(RELEASE, "npm");
    const tarballs = readdirSync(npm).filter((f) => f.endsWith(".tgz"));
    expect(tarballs.sort()).toEqual([`majordomus-${VERSION}.tgz`, `majordomus-cli-${HOST}-${VERSION}.tgz`]);
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", private: true }));
    const cache = join(work, "npm-cache");
    const installed = sh(
      "npm",
      ["install", "--no-audit", "--no-fund", "--offline", `--cache=${cache}`, ...tarballs.map((t) => join(npm, t))],
      { cwd: project },
    );
    expect(installed.status, installed.stderr).toBe(0);
    const npx = sh("npx", ["--offline", `--cache=${cache}`, "majordomus", "--version"], { cwd: project });
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout.trim()).toBe(VERSION);
  }, 600_000);
});

describe("install.sh as people call it", () => {
  test("with no release published and no --from: it says so, names the route that works, and installs nothing", () => {
    const run = sh("sh", [INSTALL, "--into", join(work, "none")]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("majordomus publishes no release yet");
    expect(run.stderr).toContain("npm run build:release && sh install.sh --from dist/release");
    expect(existsSync(join(work, "none"))).toBe(false);
  });

  test("--into a folder inside a git repository is refused (the hooks never run a binary there)", () => {
    const repo = join(work, "a-repo");
    mkdirSync(repo, { recursive: true });
    sh("git", ["init", "-q", repo]);
    const run = sh("sh", [INSTALL, "--from", join(work, "nowhere"), "--into", join(repo, ".majordomus", "bin")]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("is inside the git repository");
    expect(existsSync(join(repo, ".majordomus"))).toBe(false);
  });

  test("piped into sh with --help: the usage, exit 0", () => {
    const run = sh("sh", ["-s", "--", "--help"], { input: readFileSync(INSTALL, "utf8") });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("install.sh: install the majordomus binary");
    expect(run.stdout).toContain("--version V");
  });

  test("--version without a value, or not a version, is a usage error (2)", () => {
    for (const args of [["--version"], ["--version", "--into", "x"], ["--version", "banana"]]) {
      const run = sh("sh", [INSTALL, ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/--version (needs a value|banana is not a version)/);
    }
  });

  test("0.1.0 and v0.1.0 name the same release", () => {
    // A curl that only says what it was asked for.
    const stub = join(work, "stub");
    mkdirSync(stub, { recursive: true });
    writeFileSync(join(stub, "curl"), `#!/bin/sh\nfor a; do last=$a; done\necho "asked: $last" >&2\nexit 22\n`);
    chmodSync(join(stub, "curl"), 0o755);
    for (const v of ["0.1.0", "v0.1.0"]) {
      const run = sh("sh", [INSTALL, "--version", v, "--into", join(work, "never")], {
        env: { PATH: `${stub}:${process.env.PATH}`, MAJORDOMUS_REPO: "owner/name" },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("https://github.com/owner/name/releases/download/v0.1.0/majordomus-");
    }
  });
});

describe("the release workflow", () => {
  const text = readFileSync(join(PROJECT, ".github", "workflows", "release.yml"), "utf8");

  test("every action is pinned by commit", () => {
    const uses = [...text.matchAll(/uses: (\S+)/g)].map((m) => m[1]!);
    expect(uses.length).toBeGreaterThanOrEqual(5);
    for (const u of uses) expect(u).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });

  test("its gate is what CI runs, and what it ships is attested and checksummed", () => {
    expect(text).toContain("bash .ci/run");
    expect(text).toContain("actions/attest-build-provenance@");
    expect(text).toContain("dist/release/SHA256SUMS");
    expect(text).toContain("--provenance");
  });

  test("CI runs the same gate on every push and pull request, its actions pinned by commit, the same ones as the release's", () => {
    const ci = readFileSync(join(PROJECT, ".github", "workflows", "ci.yml"), "utf8");
    expect(ci).toMatch(/on:\n  push:[\s\S]*  pull_request:/);
    expect(ci).toContain("bash .ci/run");
    const pins = (t: string) => [...t.matchAll(/uses: (\S+)/g)].map((m) => m[1]!);
    for (const u of pins(ci)) {
      expect(u).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      expect(pins(text)).toContain(u);
    }
  });

  test("it publishes only from the repository package.json names as the home, and npm only under the home's scope", () => {
    expect(text).toContain(`require('./package.json').home.github")" = "$GITHUB_REPOSITORY"`);
    expect(text).toContain("home.npm_scope");
  });
});
