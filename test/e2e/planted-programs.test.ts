// A stranger's repository ships its own `git` and `majordomus` (tracked, in bin/ and
// .majordomus/bin/), and the person's PATH reaches into it every way a PATH can: `.`, an empty
// entry, a relative entry, the repository's own folders; or a checkout rewrites the record of the
// binary the shims run. None of them is ever run: not by a hook, not by a command, not by doctor. Each planted program leaves a marker file outside the
// repository if it runs; the hooks and commands still work with the person's own programs.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";
import { captured, fire } from "../support/capture.ts";
import { scratch } from "../support/repo.ts";

const PLANTED = [
  "git",
  "bin/git",
  "bin/majordomus",
  ".majordomus/bin/majordomus",
  ".majordomus/bin/git",
  "tools/git",
  "tools/majordomus",
];

describe("programs the repository ships are never run", () => {
  test("planted git and majordomus, tracked, under every PATH shape: no marker, and the hooks and commands still answer", () => {
    using repo = captured();
    const markers = scratch("majordomus-markers-");
    for (const rel of PLANTED) {
      mkdirSync(dirname(repo.path(rel)), { recursive: true });
      writeFileSync(repo.path(rel), `#!/bin/sh\necho "${rel} $*" >> '${join(markers, "ran")}'\nexit 0\n`);
      chmodSync(repo.path(rel), 0o755);
    }
    repo.git("add", "-f", ...PLANTED);
    repo.git("-c", "user.name=s", "-c", "user.email=s@s", "commit", "-q", "-m", "a stranger's programs");
    const person = `${dirname(BIN)}:${process.env.PATH}`;
    const shapes = {
      dot: `.:${person}`,
      empty: `:${person}`,
      "empty at the end": `${person}:`,
      relative: `bin:tools:.majordomus/bin:${person}`,
      "the repository's folders": `${repo.path("bin")}:${repo.path(".majordomus/bin")}:${repo.path("tools")}:${repo.dir}:${person}`,
    };
    for (const [shape, PATH] of Object.entries(shapes)) {
      const env = { PATH };
      const start = fire(repo, "start", { session_id: `s-${shape}`, source: "startup" }, env);
      expect(`${shape}: ${start.status}`).toBe(`${shape}: 0`);
      expect(start.stdout).toContain("majordomus");
      expect(
        fire(repo, "prompt", { session_id: `s-${shape}`, prompt_id: `p-${shape}`, prompt: "hello" }, env).status,
      ).toBe(0);
      expect(fire(repo, "compact", { session_id: `s-${shape}`, trigger: "auto" }, env).status).toBe(0);
      expect(fire(repo, "end", { session_id: `s-${shape}`, reason: "other" }, env).status).toBe(0);
      for (const args of [
        ["context"],
        ["handover", "--resolve"],
        ["doctor"],
        ["capture", "status"],
        ["session", "status"],
      ])
        repo.mj(args, { env });
      // From a subfolder too: `.` is then the subfolder, and the repository is above it.
      mkdirSync(repo.path("tools", "sub"), { recursive: true });
      repo.mj(["doctor"], { env: { PATH: `..:../../bin:${person}` }, cwd: repo.path("tools", "sub") });
      expect(
        `${shape}: ${existsSync(join(markers, "ran")) ? readFileSync(join(markers, "ran"), "utf8") : "nothing ran"}`,
      ).toBe(`${shape}: nothing ran`);
    }
    // doctor names the tracked ones for what they are.
    const doctor = repo.mj(["doctor"]);
    for (const rel of ["bin/majordomus", ".majordomus/bin/majordomus"])
      expect(doctor.stdout + doctor.stderr).toContain(`${rel}`);
    expect(doctor.stdout + doctor.stderr).toContain("a stranger's");
    // And the work was done with the person's programs: each end closed its episode into a record.
    expect(
      repo.git("ls-files", "--others", "--exclude-standard", ".ai/repo/sessions").split("\n").filter(Boolean).length +
        repo.git("ls-files", ".ai/repo/sessions").split("\n").filter(Boolean).length,
    ).toBeGreaterThanOrEqual(Object.keys(shapes).length);
    rmSync(markers, { recursive: true, force: true });
  }, 600_000);

  test("capture install records the binary it was run with, never a copy inside the repository (ignored or tracked); the shims never run a record that names one, or a path through /proc", () => {
    using repo = captured();
    expect(readFileSync(repo.path(".ai/local/state/binary"), "utf8").trim()).toBe(BIN);
    mkdirSync(repo.path(".majordomus/bin"), { recursive: true });
    const local = repo.path(".majordomus/bin/majordomus");
    writeFileSync(local, readFileSync(BIN));
    chmodSync(local, 0o755);
    const installWith = (bin: string) => {
      const r = Bun.spawnSync([bin, "capture", "install"], {
        cwd: repo.dir,
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, PATH: "/usr/bin:/bin" },
      });
      return { status: r.exitCode, text: r.stdout.toString() + r.stderr.toString() };
    };
    // Not ignored, ignored, tracked: never recorded, and said why; the record stays the person's binary. With no
    // majordomus on the PATH outside the repository either, the shims would run nothing: refused, nothing written.
    const first = installWith(local);
    expect(first.text).toContain("is inside the repository");
    expect(first.status).toBe(15);
    expect(first.text).toContain("nothing was written");
    expect(readFileSync(repo.path(".ai/local/state/binary"), "utf8").trim()).toBe(BIN);
    writeFileSync(repo.path(".gitignore"), `${readFileSync(repo.path(".gitignore"), "utf8")}.majordomus/\n`);
    expect(installWith(local).text).toContain("is inside the repository");
    expect(readFileSync(repo.path(".ai/local/state/binary"), "utf8").trim()).toBe(BIN);
    repo.git("add", "-f", ".majordomus/bin/majordomus");
    expect(installWith(local).text).toContain("is inside the repository");
    expect(readFileSync(repo.path(".ai/local/state/binary"), "utf8").trim()).toBe(BIN);
    // A record a checkout rewrote (git overwrites ignored files): naming a program of the repository by
    // its path, or through /proc, it is never run; the hook runs majordomus from the person's PATH.
    const markers = scratch("majordomus-markers-");
    writeFileSync(repo.path("evil"), `#!/bin/sh\necho "evil $*" >> '${join(markers, "ran")}'\nexit 0\n`);
    chmodSync(repo.path("evil"), 0o755);
    for (const named of [repo.path("evil"), "/proc/self/cwd/evil"]) {
      writeFileSync(repo.path(".ai/local/state/binary"), `${named}\n`);
      const run = fire(repo, "prompt", { session_id: "cc-record", prompt: "hello" });
      expect({ named, status: run.status }).toEqual({ named, status: 0 });
      expect({ named, ran: existsSync(join(markers, "ran")) }).toEqual({ named, ran: false });
      expect(run.stderr).toContain(".ai/local/state/binary names a program inside this repository");
    }
    // And the prompt was captured by the person's majordomus, found on the PATH.
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).toContain('"provider_session":"cc-record"');
    rmSync(markers, { recursive: true, force: true });
  }, 300_000);
});

describe("git's own hooks, from a core.hooksPath into the repository", () => {
  // Every hook git can run, and an fsmonitor: each writes a marker and then sleeps.
  const HOOKS = [
    "reference-transaction",
    "post-index-change",
    "pre-commit",
    "post-commit",
    "pre-push",
    "post-checkout",
    "post-rewrite",
    "pre-auto-gc",
    "post-merge",
  ];

  test("a consented end commits and pushes its record with none of them run, and nothing of theirs is left running", () => {
    using repo = captured();
    const tag = `majordomus-hook-probe-${process.pid}`;
    const markers = scratch("majordomus-hook-markers-");
    mkdirSync(repo.path(".githooks"), { recursive: true });
    for (const hook of [...HOOKS, "fsmonitor"])
      writeFileSync(
        repo.path(".githooks", hook),
        `#!/bin/sh\necho ${hook} >> '${join(markers, "ran")}'\nexec sleep 30 # ${tag}\n`,
        { mode: 0o755 },
      );
    repo.git("add", ".githooks");
    repo.git("commit", "-q", "--no-verify", "-m", "husky-style hooks");
    // What `npm install` with husky sets in the person's own config, and an fsmonitor beside it.
    repo.git("config", "core.hooksPath", ".githooks");
    repo.git("config", "core.fsmonitor", repo.path(".githooks", "fsmonitor"));
    const remote = scratch("majordomus-hook-remote-");
    Bun.spawnSync(["git", "init", "-q", "--bare", remote]);
    repo.git("remote", "add", "origin", remote);
    writeFileSync(
      repo.path(".ai/local/state/consent.yaml"),
      "session:\n  commit_record_on_end: true\n  push_record_on_end: true\n",
      { mode: 0o600 },
    );
    const before = repo.git("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "rev-parse", "HEAD");
    const START = { session_id: "cc-hooks", source: "startup" };
    fire(repo, "start", START);
    fire(repo, "prompt", { ...START, prompt: "hello", prompt_id: "p-1" });
    fire(repo, "end", { session_id: "cc-hooks", reason: "other" });
    try {
      expect(existsSync(join(markers, "ran")) ? readFileSync(join(markers, "ran"), "utf8") : "nothing ran").toBe(
        "nothing ran",
      );
      const after = Bun.spawnSync(["git", "-c", "core.fsmonitor=false", "rev-parse", "HEAD"], { cwd: repo.dir })
        .stdout.toString()
        .trim();
      expect(after).not.toBe(before);
      const left = Bun.spawnSync(["pgrep", "-f", tag]).stdout.toString().trim();
      expect(left).toBe("");
    } finally {
      Bun.spawnSync(["pkill", "-f", tag]);
      rmSync(markers, { recursive: true, force: true });
      rmSync(remote, { recursive: true, force: true });
    }
  }, 300_000);
});
