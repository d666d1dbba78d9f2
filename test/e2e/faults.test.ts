// Faults of the machine: a full disk never tears a ledger line and never makes a hook fail its
// client; episode ids do not collide when many open at once.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture, hookEnv, sessionFiles, SHIMS, slowGit } from "../support/capture.ts";
import { ok } from "../support/layered.ts";
import { Repo, scratch, sh } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");

/** A repository on a tmpfs of `size` (root only); undefined where no tmpfs can be mounted. */
function onTinyDisk(size: string): { repo: Repo; mount: string; [Symbol.dispose](): void } | undefined {
  const place = scratch("majordomus-tiny-");
  const mount = join(place, "disk");
  mkdirSync(mount);
  if (spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mount]).status !== 0) {
    rmSync(place, { recursive: true, force: true });
    return undefined;
  }
  const repo = new Repo(join(mount, "repo"));
  mkdirSync(repo.dir);
  repo.git("init", "-q", "-b", "main");
  repo.commit("start");
  ok(repo.mj(["init"]));
  ok(repo.mj(["capture", "install"]));
  repo.git("add", ".ai", ".gitignore", ".claude", ".mcp.json");
  repo.git("commit", "-q", "-m", "layer");
  return {
    repo,
    mount,
    [Symbol.dispose]() {
      spawnSync("umount", ["-l", mount]);
      rmSync(place, { recursive: true, force: true });
    },
  };
}

/** Fill the disk: write until the filesystem refuses. */
function fill(mount: string): void {
  spawnSync("sh", ["-c", `dd if=/dev/zero of=${JSON.stringify(join(mount, "filler"))} bs=4k 2>/dev/null; sync`]);
}

const lines = (repo: Repo) => readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8");

describe("a full disk", () => {
  test("hooks exit 0 and say so; no ledger line is torn; once there is room again, events are recorded", () => {
    using disk = onTinyDisk("2m");
    if (!disk) return void console.warn("skipped: no tmpfs can be mounted here (not root)");
    const { repo } = disk;
    fire(repo, "start", START);
    fill(disk.mount);
    const runs = [
      sh(
        repo.dir,
        join(repo.dir, SHIMS.prompt),
        [],
        JSON.stringify({ session_id: START.session_id, prompt_id: "p-full", prompt: "x".repeat(20_000) }),
        hookEnv(),
      ),
      sh(
        repo.dir,
        join(repo.dir, SHIMS.compact),
        [],
        JSON.stringify({ session_id: START.session_id, trigger: "auto" }),
        hookEnv({ MAJORDOMUS_HOOK_WORK: "foreground" }),
      ),
      sh(
        repo.dir,
        join(repo.dir, SHIMS.end),
        [],
        JSON.stringify({ session_id: START.session_id, reason: "other" }),
        hookEnv(),
      ),
      sh(repo.dir, join(repo.dir, SHIMS.start), [], JSON.stringify({ ...START, session_id: "another" }), hookEnv()),
    ];
    for (const run of runs) expect(run.status).toBe(0);
    // Every line of the ledger is whole JSON: a short write was cut back, never left.
    for (const line of lines(repo)
      .split("\n")
      .filter((l) => l !== ""))
      expect(() => JSON.parse(line)).not.toThrow();
    rmSync(join(disk.mount, "filler"));
    const after = fire(repo, "start", { ...START, session_id: "after-room" });
    expect(after.status).toBe(0);
    expect(lines(repo)).toContain('"provider_session":"after-room"');
    for (const line of lines(repo)
      .split("\n")
      .filter((l) => l !== ""))
      expect(() => JSON.parse(line)).not.toThrow();
  }, 300_000);
});

describe("bounded waits", () => {
  test("a git that hangs: the start hook briefs 'working tree unknown' and why, and does not wait for git", () => {
    using repo = captured();
    const hang = slowGit(10);
    const started = Date.now();
    const run = fire(repo, "start", START, hang, { handOff: "leave" });
    const took = Date.now() - started;
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("working tree unknown (git status did not answer within session.git_deadline_ms).");
    // It did not wait for the 10 s git (a behaviour, not a timing target: anything under half of it).
    expect(took).toBeLessThan(5_000);
  }, 300_000);

  test("a read-only local half: the start hook does not wait for an answer the shim could not write", () => {
    using repo = captured();
    fire(repo, "start", START);
    chmodSync(repo.path(".ai/local/cache"), 0o500);
    try {
      const started = Date.now();
      const run = fire(repo, "start", { ...START, session_id: "read-only" }, {}, { handOff: "leave" });
      // It did not sit out the 5 s an answer may take to come: none could (a behaviour, not a timing target).
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(run.status).toBe(0);
      // git was asked directly instead: the tree state is known.
      expect(run.stdout).toContain("working tree clean.");
    } finally {
      chmodSync(repo.path(".ai/local/cache"), 0o700);
    }
  }, 300_000);
});

describe("episode ids", () => {
  test("200 episodes opened in the same second by hand all get their own id", () => {
    using repo = Repo.init();
    repo.commit("start");
    ok(repo.mj(["init"]));
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const run = ok(
        repo.mj(["session", "start", "--provider", "claude-code", "--provider-session", `burst-${i}`, "--json"], {
          env: { MAJORDOMUS_NOW: "2026-11-30T12:00:00Z" },
        }),
      );
      ids.add(JSON.parse(run.stdout).episode.session_id);
    }
    expect(ids.size).toBe(200);
    // 48 random bits after the second: a burst of thousands in one second stays apart.
    for (const id of ids) expect(id).toMatch(/^s-\d{14}-[0-9a-f]{12}$/);
    writeFileSync(repo.path("done"), "");
  }, 300_000);
});

describe("locks never wedge", () => {
  test("an empty lock (a writer killed between creating and naming it) and a dead holder are broken; doctor names each lock and its state", () => {
    using repo = captured();
    fire(repo, "start", START);
    const lock = repo.path(".ai/local/state/ledger.jsonl.lock");
    writeFileSync(lock, "");
    const old = new Date(Date.now() - 5_000);
    utimesSync(lock, old, old);
    writeFileSync(repo.path(".ai/local/state/records.lock"), `${JSON.stringify({ pid: 999_999_999 })}\n`);
    const doctor = repo.mj(["doctor"]);
    expect(doctor.stdout).toContain(
      "WARN locks .ai/local/state/ledger.jsonl.lock — stale: it names no holder; the next writer breaks it",
    );
    expect(doctor.stdout).toContain(
      "WARN locks .ai/local/state/records.lock — stale: the process that took it (pid 999999999) is gone",
    );
    // The next writers go straight through: a handover (records lock) and its ledger line (ledger lock).
    const started = Date.now();
    ok(repo.mj(["handover", "--derive", "--no-task"]));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(repo.path(".ai/local/state/records.lock"))).toBe(false);
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).toContain('"event":"task.handed_over"');
  });

  test("a lock whose pid was reused by another process (another start time) is stale", () => {
    using repo = captured();
    fire(repo, "start", START);
    // Our own test process is alive, but it is not the holder this lock names: its start time differs.
    writeFileSync(repo.path(".ai/local/state/records.lock"), `${JSON.stringify({ pid: process.pid, start: 1 })}\n`);
    expect(repo.mj(["doctor"]).stdout).toContain(
      `WARN locks .ai/local/state/records.lock — stale: the process that took it (pid ${process.pid}) is gone`,
    );
    ok(repo.mj(["handover", "--derive", "--no-task"]));
  });
});

describe("growth", () => {
  test("session list pages: the newest 20 by default, saying older ones exist; --limit 0 lists every one", () => {
    using repo = captured();
    for (let i = 0; i < 23; i++) {
      fire(repo, "start", { ...START, session_id: `many-${i}` });
      fire(repo, "end", { session_id: `many-${i}`, reason: "other" });
    }
    const list = repo.mj(["session", "list"]);
    expect(list.stdout.trim().split("\n").length).toBe(20);
    expect(list.stderr).toContain("the newest 20 shown; older ones exist (`--limit 0` lists every one)");
    // Newest first: the last session closed is the first line.
    const latest = JSON.parse(repo.mj(["session", "latest", "--json"]).stdout);
    expect(list.stdout.split("\n")[0]).toContain(latest.meta.session_id);
    expect(repo.mj(["session", "list", "--limit", "0"]).stdout.trim().split("\n").length).toBe(23);
    expect(JSON.parse(repo.mj(["session", "list", "--json", "--limit", "5"]).stdout)).toMatchObject({ more: true });
  }, 300_000);
});

describe("doctor remembers what it found good", () => {
  test("a record found good is not read again until it changes; a changed one is checked again and fails", () => {
    using repo = captured();
    ok(repo.mj(["handover", "--no-task"], { input: "# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\nC.\n" }));
    expect(repo.mj(["doctor"]).status).toBe(0);
    const cache = readFileSync(repo.path(".ai/local/cache/doctor-verdicts.tsv"), "utf8").split("\n");
    const dir = repo.path(".ai/local/state/handovers");
    const file = readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!;
    const { size, ctimeMs, ino } = statSync(join(dir, file));
    expect(cache).toContain(`${file}\t${size}:${ctimeMs}:${ino}`);
    // Changed by hand: an undeclared key in its front matter.
    writeFileSync(
      join(dir, file),
      readFileSync(join(dir, file), "utf8").replace("---\nschema:", "---\nsmuggled: yes\nschema:"),
    );
    const after = repo.mj(["doctor"]);
    expect(after.status).toBe(10);
    expect(after.stdout).toContain("undeclared front matter key(s): smuggled");
    // A bad record is never remembered: the next run fails the same way.
    expect(repo.mj(["doctor"]).status).toBe(10);
  });

  test("verdicts another build reached (one that knew other keys) are not taken: its records are read again", () => {
    using repo = captured();
    ok(repo.mj(["handover", "--no-task"], { input: "# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\nC.\n" }));
    expect(repo.mj(["doctor"]).status).toBe(0);
    const cachePath = repo.path(".ai/local/cache/doctor-verdicts.tsv");
    const [header] = readFileSync(cachePath, "utf8").split("\n");
    const dir = repo.path(".ai/local/state/handovers");
    const file = readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!;
    // A build that knows a key this one does not found the record good with it.
    writeFileSync(
      join(dir, file),
      readFileSync(join(dir, file), "utf8").replace("---\nschema:", "---\nsmuggled: yes\nschema:"),
    );
    const { size, ctimeMs, ino } = statSync(join(dir, file));
    const cacheAs = (by: string) => writeFileSync(cachePath, `${by}\n${file}\t${size}:${ctimeMs}:${ino}\n`);
    cacheAs("majordomus doctor verdicts v3 0123456789abcdef");
    const foreign = repo.mj(["doctor"]);
    expect(foreign.status).toBe(10);
    expect(foreign.stdout).toContain("undeclared front matter key(s): smuggled");
    // The same verdict under this build's own header is taken: the file is not read (which is why the header matters).
    cacheAs(header!);
    expect(repo.mj(["doctor"]).stdout).not.toContain("smuggled");
  });

  test("the episode a closed record names is remembered with it: a second record for one episode is found on every later run", () => {
    using repo = captured();
    fire(repo, "start", { ...START, session_id: "cc-twice" });
    fire(repo, "end", { session_id: "cc-twice", reason: "other" });
    expect(repo.mj(["doctor"]).status).toBe(0);
    const dir = repo.path(".ai/repo/sessions");
    const record = readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!;
    // Remembered by the change key of the very file it read (its fstat), which a later look (stat) finds again.
    const { size, ctimeMs, ino } = statSync(join(dir, record));
    const episode = /^session_id: (\S+)$/m.exec(readFileSync(join(dir, record), "utf8"))![1];
    expect(readFileSync(repo.path(".ai/local/cache/doctor-verdicts.tsv"), "utf8").split("\n")).toContain(
      `${record}\t${size}:${ctimeMs}:${ino}\t${episode}`,
    );
    // A copy under another name (a bad merge): the original is not read again, its episode comes from the cache.
    writeFileSync(join(dir, record.replace("--", "--copy-")), readFileSync(join(dir, record), "utf8"));
    for (let run = 0; run < 2; run++) {
      const doctor = repo.mj(["doctor"]);
      expect(doctor.status).toBe(10);
      expect(doctor.stdout).toMatch(/FAIL sessions s-\S+ — 2 closed records for one episode/);
    }
  });
});

describe("a slow git at the end", () => {
  test("with a git that takes 5 s, the end hook killed at 3 s (Codex's budget) writes its record every time, saying what git did not answer", () => {
    using repo = captured();
    const slow = slowGit(5);
    for (const n of [1, 2, 3]) {
      const session = `slow-end-${n}`;
      fire(repo, "start", { ...fixture("SessionStart-startup.json"), session_id: session });
      const run = spawnSync("timeout", ["-s", "KILL", "3", repo.path(SHIMS.end)], {
        cwd: repo.dir,
        input: JSON.stringify({ ...fixture("SessionEnd-other.json"), session_id: session }),
        env: { ...process.env, ...slow },
        encoding: "utf8",
      });
      // timeout exits 137 when it had to kill: the hook ended on its own, within the budget.
      expect(run.status).toBe(0);
      const record = sessionFiles(repo)
        .map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"))
        .find((t) => t.includes(`provider_session: ${session}\n`));
      expect(record).toBeDefined();
      expect(record).toContain("git did not answer within the end hook's budget");
    }
  }, 300_000);
});
