// A received end event always ends in exactly one closed record, with its checkpoint and its
// continuation record, whoever dies on the way: the hook killed at random moments and at each of
// its writes, the client's container ending with it, a compaction racing the end.
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture, hookEnv, SHIMS, sessionFiles, settled, slowGit } from "../support/capture.ts";
import { ledger, ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";
import { BIN as BIN_PATH } from "../support/env.ts";

const START = fixture("SessionStart-startup.json");
const END = fixture("SessionEnd-other.json");

/** For each episode the ledger says an end event reached: its closed records, checkpoints and continuation records written at or after the end. */
function accounts(repo: Repo) {
  const lines = ledger(repo);
  const episodes = new Map<string, string>();
  for (const e of lines)
    if (e.event === "session.started") episodes.set(String(e.provider_session), String(e.session_id));
  const received = new Set(
    lines
      .filter((e) => e.event === "provider.event.received" && e.provider_event === "end")
      .map((e) => String(e.provider_session)),
  );
  const claimed = new Set(
    readdirSafe(repo.path(".ai/local/state/sessions-closing"))
      .filter((f) => f.endsWith(".claim"))
      .map((f) => f.slice(0, -6)),
  );
  const records = sessionFiles(repo).map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"));
  return [...episodes].map(([client, id]) => ({
    client,
    id,
    received: received.has(client),
    claimed: claimed.has(id),
    records: records.filter((r) => r.includes(`\nsession_id: ${id}\n`)).length,
    closedLines: lines.filter((e) => e.event === "session.closed" && e.session_id === id).length,
    checkpoints: lines.filter((e) => e.event === "task.checkpoint" && e.session === id && e.how === "derived").length,
    continuations: lines.filter((e) => e.event === "task.handed_over" && e.session === id && e.how === "derived")
      .length,
  }));
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Nothing but records and the README in the tracked half: no temp file a killed writer left. */
function trackedHalfClean(repo: Repo): string[] {
  // The closed records, and the shared handovers' folder beside them with only its README (nothing was shared).
  const shared = readdirSync(repo.path(".ai/repo/sessions/shared")).filter((f) => f !== "README.md");
  return [
    ...readdirSync(repo.path(".ai/repo/sessions")).filter(
      (f) => f !== "README.md" && f !== "shared" && !/^\d{8}T\d{6}Z--s-[0-9a-z-]+\.md$/.test(f),
    ),
    ...shared.map((f) => `shared/${f}`),
  ];
}

/**
 * Every end that was received (or claimed: the claim comes before the receipt) is one closed
 * record with one `session.closed` line, a checkpoint and a continuation record; an end killed
 * before it claimed anything left nothing at all. Never anything in between, never two.
 */
function expectKept(repo: Repo): void {
  const all = { records: 1, closedLines: 1, checkpoints: 1, continuations: 1 };
  const none = { records: 0, closedLines: 0, checkpoints: 0, continuations: 0 };
  for (const a of accounts(repo)) {
    const expected = a.received || a.claimed || a.records > 0 ? all : none;
    expect({
      client: a.client,
      records: a.records,
      closedLines: a.closedLines,
      checkpoints: a.checkpoints,
      continuations: a.continuations,
    }).toEqual({ client: a.client, ...expected });
  }
  expect(trackedHalfClean(repo)).toEqual([]);
}

/** Run the end shim and kill it (the binary it execs) after `ms`. Resolves when it is gone. */
function endKilledAfter(repo: Repo, session: string, ms: number, env: Record<string, string>): Promise<void> {
  return new Promise((done) => {
    const child = spawn(join(repo.dir, SHIMS.end), [], {
      cwd: repo.dir,
      env: { ...process.env, ...env },
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.stdin.end(JSON.stringify({ ...END, session_id: session }));
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("exit", () => {
      clearTimeout(timer);
      done();
    });
  });
}

describe("a received end event always ends in exactly one closed record", () => {
  test("the end hook killed at random moments: the next event (or recover) finishes every close it left", async () => {
    using repo = captured();
    const sessions = Array.from({ length: 24 }, (_, i) => `kill-${i}`);
    for (const s of sessions) fire(repo, "start", { ...START, session_id: s });
    // Each git call takes 30 ms more, so the close spans ~150 ms and the kills land all over it.
    const slow = slowGit(0.03);
    const left: string[] = [];
    for (const [i, s] of sessions.entries()) {
      await endKilledAfter(repo, s, 5 + ((i * 13) % 180), slow);
      // Each later end finishes the closes the earlier kills left; count the ones this kill left.
      if (accounts(repo).some((a) => a.client === s && (a.received || a.claimed) && a.records === 0)) left.push(s);
    }
    // The kills did leave closes unfinished (else this test would prove nothing).
    expect(left.length).toBeGreaterThan(3);
    // The next event in the checkout keeps the promises: a start of another client session.
    fire(repo, "start", { ...START, session_id: "the-next-one" });
    settled(repo);
    expectKept(repo);
    // And redelivering an end adds nothing.
    for (const client of left) fire(repo, "end", { ...END, session_id: client });
    expectKept(repo);
    expect(readdirSafe(repo.path(".ai/local/state/sessions-closing")).filter((f) => f.endsWith(".claim"))).toEqual([]);
  }, 600_000);

  const STRACE = spawnSync("sh", ["-c", "command -v strace"], { encoding: "utf8" }).stdout.trim();

  test.skipIf(STRACE === "")(
    "killed at each write, link and unlink of a close (strace): recover finishes every one, once",
    () => {
      using repo = captured();
      const payload = repo.path("end.json");
      let killed = 0;
      let n = 0;
      for (const call of ["write", "link", "unlink"]) {
        for (let when = 1; when <= 60; when++) {
          const client = `strace-${call}-${when}`;
          fire(repo, "start", { ...START, session_id: client });
          writeFileSync(payload, JSON.stringify({ ...END, session_id: client }));
          const run = spawnSync(
            STRACE,
            [
              "-f",
              "-qq",
              "-o",
              "/dev/null",
              "-e",
              `trace=${call}`,
              "-e",
              `inject=${call}:signal=SIGKILL:when=${when}`,
              join(repo.dir, SHIMS.end),
            ],
            { cwd: repo.dir, input: readFileSync(payload), env: { ...process.env, ...hookEnv() } },
          );
          n++;
          if (run.status === 0) break;
          killed++;
        }
      }
      // Some kills landed (the close has many writes), and then one recover keeps every promise.
      expect(killed).toBeGreaterThan(10);
      ok(repo.mj(["recover"]));
      expectKept(repo);
      expect(accounts(repo).length).toBe(n);
    },
    600_000,
  );

  test.skipIf(STRACE === "")(
    "a handover killed at each write, link and rename: the index never hides a newer record",
    () => {
      using repo = captured();
      ok(repo.mj(["handover"], { input: "# Objective\nA.\n\n# Current State\nA.\n\n# Next Action\nThe first.\n" }));
      let killed = 0;
      for (const call of ["write", "link", "rename"]) {
        for (let when = 1; when <= 30; when++) {
          const body = `# Objective\nB.\n\n# Current State\nB.\n\n# Next Action\nKilled at ${call} ${when}.\n`;
          const run = spawnSync(
            STRACE,
            [
              "-f",
              "-qq",
              "-o",
              "/dev/null",
              "-e",
              `trace=${call}`,
              "-e",
              `inject=${call}:signal=SIGKILL:when=${when}`,
              BIN_PATH,
              "handover",
            ],
            { cwd: repo.dir, input: body },
          );
          // What the index says (the briefing's path) is what reading every record says.
          const byIndex = repo.mj(["handover", "--resolve", "--path"]).stdout.trim();
          const byScan = repo.path(JSON.parse(repo.mj(["handover", "--resolve", "--json"]).stdout).record.path);
          expect({ call, when, path: byIndex }).toEqual({ call, when, path: byScan });
          if (run.status === 0) break;
          killed++;
        }
      }
      expect(killed).toBeGreaterThan(5);
    },
    600_000,
  );

  test("recover, session close and doctor --fix each finish a close whose taker died, once", () => {
    using repo = captured();
    const dir = repo.path(".ai/local/state/sessions-closing");
    const idOf = (client: string) =>
      String(ledger(repo).find((e) => e.event === "session.started" && e.provider_session === client)!.session_id);
    /** As a taker killed right after taking the claim leaves it: the claim, and nothing else. */
    const orphan = (client: string) => {
      fire(repo, "start", { ...START, session_id: client });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(dir, `${idOf(client)}.claim`),
        `${JSON.stringify({ schema: "close-claim/v1", session_id: idOf(client), provider: "claude-code", provider_session: client, reason: "other", outcome: "interrupted", claimed_at: "2026-11-30T12:00:00.000Z", by: { pid: 999_999_999 } })}\n`,
        { mode: 0o600 },
      );
    };
    const recordsOf = (client: string) =>
      sessionFiles(repo)
        .map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"))
        .filter((r) => r.includes(`provider_session: ${client}\n`)).length;

    orphan("by-recover");
    const check = repo.mj(["recover", "--check"]);
    expect(check.status).toBe(10);
    expect(check.stdout).toContain(`unfinished close ${idOf("by-recover")}`);
    const doctor = repo.mj(["doctor"]);
    expect(doctor.status).toBe(10);
    expect(doctor.stdout).toContain("the process that took the claim is gone before the record was written");
    expect(ok(repo.mj(["recover"])).stdout).toContain(`finished the close of ${idOf("by-recover")}`);
    expect(recordsOf("by-recover")).toBe(1);

    orphan("by-close");
    const closed = repo.mj(["session", "close", "--provider-session", "by-close", "--outcome", "interrupted"]);
    expect(closed.status).toBe(0);
    expect(closed.stderr).not.toContain("already has its record");
    expect(recordsOf("by-close")).toBe(1);

    orphan("by-doctor");
    expect(repo.mj(["doctor", "--fix"]).stdout).toContain(`INFO fix ${idOf("by-doctor")} — finished its close`);
    expect(recordsOf("by-doctor")).toBe(1);

    // Nothing is left to finish, and nothing was written twice.
    expect(repo.mj(["recover", "--check"]).status).toBe(0);
    expect(ok(repo.mj(["doctor"])).stdout).not.toContain("the process that took the claim is gone");
    for (const client of ["by-recover", "by-close", "by-doctor"]) expect(recordsOf(client)).toBe(1);
  });

  test("a close killed after its record was published is finished without a second record", () => {
    using repo = captured();
    fire(repo, "start", START);
    const id = String(ledger(repo).find((e) => e.event === "session.started")!.session_id);
    fire(repo, "end", END);
    // Undo the steps after the record, as a kill right after publishing it would have left them.
    const record = sessionFiles(repo)[0]!;
    const lines = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
      .split("\n")
      .filter((l) => !l.includes('"event":"session.closed"'));
    writeFileSync(repo.path(".ai/local/state/ledger.jsonl"), lines.join("\n"));
    const episode = ledger(repo).find((e) => e.event === "session.started")!;
    writeFileSync(
      repo.path(".ai/local/state/sessions-open", `${String(START.session_id)}.yaml`),
      openRecord(repo, episode),
    );
    writeFileSync(
      repo.path(".ai/local/state/sessions-closing", `${id}.claim`),
      `${JSON.stringify({ schema: "close-claim/v1", session_id: id, provider: "claude-code", provider_session: String(START.session_id), reason: "other", outcome: "interrupted", claimed_at: new Date().toISOString(), by: { pid: 999_999_999 } })}\n`,
    );
    ok(repo.mj(["recover"]));
    expect(sessionFiles(repo)).toEqual([record]);
    expect(ledger(repo).filter((e) => e.event === "session.closed" && e.session_id === id).length).toBe(1);
    expect(readdirSafe(repo.path(".ai/local/state/sessions-open")).filter((f) => f.endsWith(".yaml"))).toEqual([]);
  });

  test("temp files a killed writer left are listed by doctor and removed by recover, never while their writer lives", () => {
    using repo = captured();
    fire(repo, "start", START);
    const dead = repo.path(
      ".ai/local/state/handovers/.20261130T120000000Z--000009--main--abc1234.md.999999999.0123abcd.tmp",
    );
    const live = repo.path(`.ai/local/state/checkpoints/.x.md.${process.pid}.0123abcd.tmp`);
    for (const f of [dead, live]) writeFileSync(f, "half a record");
    const old = new Date(Date.now() - 60_000);
    for (const f of [dead, live]) utimesSync(f, old, old);
    expect(repo.mj(["doctor"]).stdout).toContain(
      "WARN files .ai/local/state/handovers/.20261130T120000000Z--000009--main--abc1234.md.999999999.0123abcd.tmp — a temp file a killed writer left behind",
    );
    // A lock's candidate (written beside the lock, then linked into place) left by a kill: the ledger's and an episode's.
    const candidates = [
      repo.path(".ai/local/state/.ledger.jsonl.lock.999999998.0123abcd.tmp"),
      repo.path(".ai/local/state/sessions-open/.cc-x.yaml.lock.999999997.0123abcd.tmp"),
    ];
    for (const f of candidates) {
      writeFileSync(f, "pid 999999998\n");
      utimesSync(f, old, old);
    }
    const recovered = repo.mj(["recover"]);
    expect(recovered.stderr).toContain(
      "removed .ai/local/state/handovers/.20261130T120000000Z--000009--main--abc1234.md.999999999.0123abcd.tmp",
    );
    expect(existsSync(dead)).toBe(false);
    for (const f of candidates) expect(existsSync(f)).toBe(false);
    // This test process is alive: its temp file stays.
    expect(existsSync(live)).toBe(true);
  });

  test("the client's container ends with it (a PID namespace): the record is already there", () => {
    using repo = captured();
    fire(repo, "start", START);
    const payload = repo.path("end.json");
    writeFileSync(payload, JSON.stringify(END));
    const run = spawnSync(
      "unshare",
      [
        "--pid",
        "--fork",
        "--mount-proc",
        "sh",
        "-c",
        `${JSON.stringify(join(repo.dir, SHIMS.end))} < ${JSON.stringify(payload)}`,
      ],
      { cwd: repo.dir, env: { ...process.env, ...hookEnv() }, encoding: "utf8" },
    );
    if (run.status !== 0 && /Operation not permitted|cannot|unshare failed/i.test(run.stderr)) {
      console.warn(`skipped: no PID namespace here (${run.stderr.trim()})`);
      return;
    }
    expect(run.status).toBe(0);
    // No later event, no recover: the namespace took every process with it, and the close was done.
    expectKept(repo);
    expect(sessionFiles(repo).length).toBe(1);
  });

  test("a compaction right before the end: the record lists the compaction's checkpoint", () => {
    for (let i = 0; i < 5; i++) {
      using repo = captured();
      fire(repo, "start", START);
      fire(
        repo,
        "compact",
        { session_id: START.session_id, hook_event_name: "PreCompact", trigger: "auto" },
        {},
        { handOff: "leave" },
      );
      fire(repo, "end", END, {}, { handOff: "leave" });
      settled(repo);
      const record = readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8");
      const checkpoints = ledger(repo)
        .filter((e) => e.event === "task.checkpoint")
        .map((e) => String(e.checkpoint_path));
      expect(checkpoints.length).toBe(2);
      for (const c of checkpoints) expect(record).toContain(c);
    }
  }, 300_000);
});

/** The open-episode record as the hook wrote it, rebuilt from its `session.started` line and the closed record. */
function openRecord(repo: Repo, started: Record<string, unknown>): string {
  const closed = readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8");
  const field = (k: string) => new RegExp(`\\n${k}: "?([^"\\n]*)"?\\n`).exec(closed)?.[1] ?? "";
  const contexts = readdirSync(repo.path(".ai/local/session-contexts")).filter(
    (f) => f.endsWith(".md") && f !== "README.md",
  );
  const rows: Array<[string, string]> = [
    ["session_id", String(started.session_id)],
    ["opened_at", field("opened_at")],
    ["opened_by", "hook"],
    ["owner", "test"],
    ["worker", "none"],
    ["provider", "claude-code"],
    ["provider_session", String(started.provider_session)],
    ["repository_id", readFileSync(repo.path(".git/majordomus-repository"), "utf8").match(/"id":"([^"]+)"/)![1]!],
    ["worktree", repo.dir],
    ["branch", "main"],
    ["start_head", field("start_head")],
    ["start_working_tree", "clean"],
    ["task_id", "none"],
    ["context_path", `.ai/local/session-contexts/${contexts[0]}`],
  ];
  return rows.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n") + "\n";
}
