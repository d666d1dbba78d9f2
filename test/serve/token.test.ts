// The read side's secret cannot be planted or hung on: a token file a branch force-added (cloned
// under umask 077, so git wrote it 0600 and it passes every mode check) is refused and replaced,
// and its value opens nothing, for the person or for another local user; a FIFO in its place is
// refused at once. Through the compiled binary.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/env.ts";
import { captured } from "../support/capture.ts";
import { scratch } from "../support/repo.ts";
import { startServe } from "../support/serve.ts";

const PLANTED = "k".repeat(43);
const TOKEN = ".ai/local/state/serve.token";
const NOBODY = 65534;
const asNobody =
  process.getuid?.() === 0 &&
  spawnSync("setpriv", ["--version"]).status === 0 &&
  spawnSync("curl", ["--version"]).status === 0;

describe("the token file", () => {
  test("a token file a branch force-added, cloned under umask 077, is refused and replaced; its value opens nothing", async () => {
    using origin = captured();
    writeFileSync(origin.path(TOKEN), `${PLANTED}\n`, { mode: 0o600 });
    origin.git("add", "-f", TOKEN);
    origin.git("commit", "-q", "-m", "a branch that plants the read side's secret");
    const home = scratch("majordomus-clone-");
    try {
      const dir = join(home, "clone");
      const clone = spawnSync("sh", ["-c", 'umask 077 && git clone -q "$0" "$1"', origin.dir, dir], {
        encoding: "utf8",
      });
      expect(clone.status).toBe(0);
      // git wrote it as the person's own secret file would be: a mode check alone cannot tell.
      expect(statSync(join(dir, TOKEN)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, TOKEN), "utf8").trim()).toBe(PLANTED);
      const served = await startServe(dir);
      try {
        expect(served.token).not.toBe(PLANTED);
        expect(served.stderr()).toContain(`${TOKEN} is tracked by git`);
        expect(served.stderr()).toContain(`git rm --cached ${TOKEN}`);
        // Its own words pass the redaction of stderr untouched: a scheme and a placeholder are no secret.
        expect(served.stderr()).toContain("`Authorization: Bearer <token>`");
        expect(readFileSync(join(dir, TOKEN), "utf8").trim()).toBe(served.token);
        const planted = await fetch(`${served.url}/api/v1/continuity`, {
          headers: { authorization: `Bearer ${PLANTED}` },
        });
        expect(planted.status).toBe(401);
        expect((await served.fetch("/api/v1/continuity")).status).toBe(200);
        if (asNobody) {
          const curl = spawnSync(
            "setpriv",
            [
              `--reuid=${NOBODY}`,
              `--regid=${NOBODY}`,
              "--clear-groups",
              "curl",
              "-s",
              "-o",
              "/dev/null",
              "-w",
              "%{http_code}",
              "-H",
              `authorization: Bearer ${PLANTED}`,
              `${served.url}/api/v1/continuity`,
            ],
            { encoding: "utf8", cwd: "/", timeout: 120_000 },
          );
          expect(curl.stdout).toBe("401");
        }
      } finally {
        served.child.kill("SIGTERM");
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("serve --rotate-token writes a new token; the old one opens nothing on any server already running, nor a key traded before it", async () => {
    using repo = captured();
    const a = await startServe(repo.dir);
    const b = await startServe(repo.dir);
    try {
      const old = a.token;
      expect(b.token).toBe(old);
      const launch = new URL(a.open).hash.replace(/^#launch=/, "");
      const traded = await fetch(`${a.url}/api/v1/session`, {
        method: "POST",
        headers: { "x-majordomus-launch": launch },
      });
      const key = String(((await traded.json()) as { token: string }).token);
      const rotated = await startServe(repo.dir, {}, ["--rotate-token"]);
      try {
        expect(rotated.token).not.toBe(old);
        expect(readFileSync(repo.path(TOKEN), "utf8").trim()).toBe(rotated.token);
        for (const served of [a, b, rotated]) {
          const ask = (bearer: string) =>
            fetch(`${served.url}/api/v1/continuity`, { headers: { authorization: `Bearer ${bearer}` } });
          expect(`${served.url} old ${(await ask(old)).status}`).toBe(`${served.url} old 401`);
          expect(`${served.url} new ${(await ask(rotated.token)).status}`).toBe(`${served.url} new 200`);
        }
        expect(
          (await fetch(`${a.url}/api/v1/continuity`, { headers: { authorization: `Bearer ${key}` } })).status,
        ).toBe(401);
      } finally {
        rotated.child.kill("SIGTERM");
      }
    } finally {
      a.child.kill("SIGTERM");
      b.child.kill("SIGTERM");
    }
  });

  test("a FIFO where the token belongs is refused at once (15), never waited on", () => {
    using repo = captured();
    rmSync(repo.path(TOKEN), { force: true });
    expect(spawnSync("mkfifo", [repo.path(TOKEN)]).status).toBe(0);
    const run = spawnSync(BIN, ["serve", "--port", "0"], { cwd: repo.dir, encoding: "utf8", timeout: 120_000 });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(15);
    expect(run.stderr).toContain("serve.token");
    expect(run.stderr).toContain("the read side's secret");
  });
});
