// install.sh against a local mirror of the release assets (the real download needs GitHub).
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { BIN, PROJECT } from "../support/env.ts";
import { scratch, sh } from "../support/repo.ts";

// The release archive as build.ts makes it (one file, majordomus, in a .tar.xz), under both the
// AVX2 and the baseline name (install.sh picks by this machine's CPU).
const mirror = scratch("majordomus-mirror-");
const stage = scratch("majordomus-stage-");
copyFileSync(BIN, join(stage, "majordomus"));
const asset = `majordomus-linux-${process.arch === "arm64" ? "arm64" : "x64"}.tar.xz`;
const packed = spawnSync("tar", ["-cJf", join(mirror, asset), "-C", stage, "majordomus"], {
  env: { ...process.env, XZ_OPT: "-0" },
});
if (packed.status !== 0) throw new Error(`tar: ${packed.stderr}`);
const baseline = asset.replace(".tar.xz", "-baseline.tar.xz");
copyFileSync(join(mirror, asset), join(mirror, baseline));
const digest = createHash("sha256")
  .update(readFileSync(join(mirror, asset)))
  .digest("hex");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    const file = join(mirror, new URL(req.url).pathname.slice(1));
    return existsSync(file) ? new Response(Bun.file(file)) : new Response("no", { status: 404 });
  },
});
afterAll(() => server.stop(true));

/** Asynchronous on purpose: a synchronous spawn would block the mirror served from this process. */
async function install(into: string, base = `http://127.0.0.1:${server.port}`, extra: string[] = []) {
  const proc = Bun.spawn(["sh", join(PROJECT, "install.sh"), "--into", into, ...extra], {
    env: { ...process.env, MAJORDOMUS_DOWNLOAD_BASE: base },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [status, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { status, stderr };
}

describe.skipIf(process.platform !== "linux")("install.sh", () => {
  test("downloads the platform's archive over HTTP, checks its digest, installs the binary and runs it", async () => {
    writeFileSync(join(mirror, "SHA256SUMS"), `${digest}  ${asset}\n${digest}  ${baseline}\n`);
    const into = join(scratch(), "repo", ".majordomus", "bin");
    const run = await install(into);
    expect(run.status).toBe(0);
    expect(sh(into, join(into, "majordomus"), ["--version"]).stdout.trim()).toBe(
      JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).version,
    );
  });

  test("a plain folder as the base (a local build's release folder) installs; --version is honoured or refused naming both, installing nothing", async () => {
    writeFileSync(join(mirror, "SHA256SUMS"), `${digest}  ${asset}\n${digest}  ${baseline}\n`);
    const version = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).version as string;
    const into = join(scratch(), "from-folder");
    const run = await install(into, mirror, ["--version", version]);
    expect(run.status).toBe(0);
    expect(sh(into, join(into, "majordomus"), ["--version"]).stdout.trim()).toBe(version);
    const other = join(scratch(), "other-version");
    const wrong = await install(other, mirror, ["--version", "9.9.9"]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`holds version ${version}, not 9.9.9; nothing was installed`);
    expect(existsSync(join(other, "majordomus"))).toBe(false);
  }, 300_000);

  test("a digest mismatch installs nothing", async () => {
    writeFileSync(join(mirror, "SHA256SUMS"), `${"0".repeat(64)}  ${asset}\n${"0".repeat(64)}  ${baseline}\n`);
    const into = join(scratch(), "bin");
    mkdirSync(into);
    const run = await install(into);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("checksum mismatch");
    expect(existsSync(join(into, "majordomus"))).toBe(false);
  });
});
