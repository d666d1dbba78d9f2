// Compact and end hooks answer the client at once and hand their derived work to a detached worker.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture, hookEnv, pendingWork, sessionFiles, settled, slowGit } from "../support/capture.ts";
import { ledger } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");
const END_OTHER = fixture("SessionEnd-other.json");

/** A PATH on which every git call takes `seconds` longer: the worker's git work is slow, the hook's is none. */

function handovers(repo: Repo): string[] {
  return ledger(repo)
    .filter((e) => e.event === "task.handed_over")
    .map((e) => String(e.handover_path ?? e.path ?? ""));
}

const realGit = () => String(Bun.spawnSync(["sh", "-c", "command -v git"]).stdout).trim();

describe("hand-off of derived work", () => {
  test("the end hook writes the close itself before it returns: nothing is handed off, so a client that exits at once still gets its record", () => {
    using repo = captured();
    fire(repo, "start", START);
    const run = fire(repo, "end", END_OTHER, {}, { handOff: "leave" });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    // The moment the hook has exited, everything is there: no worker, no ticket, no claim left.
    expect(pendingWork(repo)).toEqual([]);
    expect(sessionFiles(repo).length).toBe(1);
    expect(readdirSync(repo.path(".ai/local/state/sessions-closing"))).toEqual([]);
    const events = ledger(repo).map((e) => e.event);
    expect(events.filter((e) => e === "session.closed").length).toBe(1);
    expect(events.filter((e) => e === "task.checkpoint").length).toBe(1);
    expect(events.filter((e) => e === "task.handed_over").length).toBe(1);
    expect(events).not.toContain("provider.event.failed");
  }, 300_000);

  test("the compact hook returns at once and its checkpoint follows; nothing is closed", () => {
    using repo = captured();
    fire(repo, "start", START);
    const run = fire(
      repo,
      "compact",
      { session_id: START.session_id, hook_event_name: "PreCompact", trigger: "auto" },
      slowGit(2),
      { handOff: "leave" },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    expect(pendingWork(repo).length).toBe(1);
    settled(repo);
    expect(ledger(repo).filter((e) => e.event === "task.checkpoint").length).toBe(1);
    expect(sessionFiles(repo)).toEqual([]);
  }, 300_000);

  test("/clear: the start right after an end briefs the continuation that end derived", () => {
    using repo = captured();
    fire(repo, "start", START);
    fire(repo, "end", { ...END_OTHER, reason: "clear" }, slowGit(0.2), { handOff: "leave" });
    const next = fire(
      repo,
      "start",
      { ...START, session_id: "after-clear", source: "clear" },
      {},
      { handOff: "leave" },
    );
    expect(next.status).toBe(0);
    // The close was done before the briefing was composed (the new start's own work may still run).
    expect(pendingWork(repo).filter((t) => t.startsWith("end--"))).toEqual([]);
    expect(sessionFiles(repo).length).toBe(1);
    const derived = ledger(repo).find((e) => e.event === "task.handed_over");
    expect(derived).toBeDefined();
    const path = Object.values(derived!).find((v) => typeof v === "string" && v.includes("/handovers/")) as string;
    expect(next.stdout).toContain(`Handover ${path}`);
    settled(repo);
  }, 300_000);

  test("a session that ends at once: the close waits for the working context its start's worker freezes", () => {
    using repo = captured();
    fire(repo, "start", START, slowGit(0.3), { handOff: "leave" });
    fire(repo, "end", END_OTHER, {}, { handOff: "leave" });
    settled(repo);
    const contexts = readdirSync(repo.path(".ai/local/session-contexts")).filter(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    expect(contexts.length).toBe(1);
    const snapshot = readFileSync(repo.path(".ai/local/session-contexts", contexts[0]!), "utf8");
    expect(snapshot).toStartWith("---\nschema: session-context/v1\n");
    expect(snapshot.indexOf("## Context at open")).toBeLessThan(snapshot.indexOf("## Close"));
    expect(sessionFiles(repo).length).toBe(1);
  }, 300_000);

  test("a start hands off only when there is work: a new episode's context, or an episode old enough to be stranded", () => {
    using repo = captured();
    // A new episode: its working context is frozen by a worker (a ticket while it runs).
    fire(repo, "start", START, slowGit(0.5), { handOff: "leave" });
    expect(pendingWork(repo).map((t) => t.split("--")[0])).toEqual(["start"]);
    settled(repo);
    // Resumed, with no other episode open: nothing to do after the briefing, so no worker.
    fire(repo, "start", { ...START, source: "resume" }, {}, { handOff: "leave" });
    expect(pendingWork(repo)).toEqual([]);
    // Resumed, with another episode opened longer ago than session.stranded_after: a worker recovers it.
    fire(repo, "start", { ...START, session_id: "old-window" });
    const later = new Date(Date.now() + 3 * 24 * 3_600_000).toISOString();
    fire(
      repo,
      "start",
      { ...START, source: "resume" },
      { MAJORDOMUS_NOW: later, ...slowGit(0.5) },
      { handOff: "leave" },
    );
    expect(pendingWork(repo).map((t) => t.split("--")[0])).toEqual(["start"]);
    settled(repo);
    expect(ledger(repo).filter((e) => e.event === "session.recovered").length).toBe(1);
  }, 300_000);

  test("a close never creates a working context that is missing: the record is written, no stray file appears", () => {
    using repo = captured();
    fire(repo, "start", START);
    const dir = repo.path(".ai/local/session-contexts");
    const contexts = () => readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md");
    const [snapshot] = contexts();
    rmSync(join(dir, snapshot!));
    fire(repo, "end", END_OTHER);
    expect(sessionFiles(repo).length).toBe(1);
    expect(contexts()).toEqual([]);
  });

  test("hooks log only warnings by default; MAJORDOMUS_LOG=info shows what they do", () => {
    using repo = captured();
    fire(repo, "start", START);
    const quiet = fire(repo, "end", { ...END_OTHER, session_id: "never-opened" });
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe("");
    const told = fire(repo, "end", { ...END_OTHER, session_id: "never-opened" }, { MAJORDOMUS_LOG: "info" });
    expect(told.stderr).toContain("nothing to close");
  });

  test("MAJORDOMUS_HOOK_WORK=foreground: the hook does the work itself before it returns", () => {
    using repo = captured();
    fire(repo, "start", START);
    const run = fire(repo, "end", END_OTHER, { MAJORDOMUS_HOOK_WORK: "foreground" }, { handOff: "leave" });
    expect(run.status).toBe(0);
    expect(pendingWork(repo)).toEqual([]);
    expect(sessionFiles(repo).length).toBe(1);
    expect(handovers(repo).length).toBe(1);
  });

  test("capture work takes its whole input from the ticket, and reads or removes only a ticket named like one", () => {
    using repo = captured();
    fire(repo, "start", START);
    const policy = readFileSync(repo.path(".ai/repo/policy.yaml"), "utf8");
    const dir = repo.path(".ai/local/state/hook-work");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "notes.work"), "mine\n");
    for (const ticket of ["../../../repo/policy.yaml", "notes", "compact--../../x", "compact--mx0000aa-0123abcd"]) {
      const run = repo.mj(["capture", "work", "--repo", repo.dir, `--ticket=${ticket}`]);
      expect(run.status).toBe(0);
    }
    expect(readFileSync(repo.path(".ai/repo/policy.yaml"), "utf8")).toBe(policy);
    expect(readFileSync(join(dir, "notes.work"), "utf8")).toBe("mine\n");
    expect(ledger(repo).filter((e) => e.event === "task.checkpoint").length).toBe(0);
    // A ticket as a compact hook writes it: its work is done in the episode it names, and the ticket goes.
    writeFileSync(
      join(dir, "compact--mx0000ab-0123abcd.work"),
      `${JSON.stringify({ schema: "hook-work/v1", event: "compact", provider: "claude-code", provider_session: String(START.session_id), handed_at: "2026-11-30T12:00:00.000Z", by: 1 })}\n`,
      { mode: 0o600 },
    );
    expect(repo.mj(["capture", "work", "--repo", repo.dir, "--ticket=compact--mx0000ab-0123abcd"]).status).toBe(0);
    const checkpoints = ledger(repo).filter((e) => e.event === "task.checkpoint");
    expect(checkpoints.length).toBe(1);
    expect(checkpoints[0]!.session).toBe(ledger(repo).find((e) => e.event === "session.started")!.session_id);
    expect(readdirSync(dir).sort()).toEqual(["notes.work"]);
  });

  test("a start's worker takes the git status the hook already had: one git status per start event", () => {
    using repo = captured();
    const dir = repo.path("..", `git-log-${Date.now()}`);
    mkdirSync(dir);
    const log = join(dir, "calls");
    writeFileSync(
      join(dir, "git"),
      `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(realGit())} "$@"\n`,
      { mode: 0o755 },
    );
    const run = fire(repo, "start", START, { PATH: `${dir}:${hookEnv().PATH}` });
    expect(run.status).toBe(0);
    settled(repo);
    // The new episode's working context was frozen by the worker, from the hook's answer.
    expect(
      readdirSync(repo.path(".ai/local/session-contexts")).filter((f) => f.endsWith(".md") && f !== "README.md").length,
    ).toBe(1);
    expect(
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => /(^| )status( |$)/.test(l)).length,
    ).toBe(1);
    expect(readdirSync(repo.path(".ai/local/cache")).filter((f) => f.startsWith("git-status."))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a worker that died leaves its ticket: doctor names it, and a start event does not wait for it", () => {
    using repo = captured();
    const dir = repo.path(".ai/local/state/hook-work");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const ticket = join(dir, "end--mx0000aa-0123abcd.work");
    writeFileSync(ticket, `${JSON.stringify({ event: "end", provider: "claude-code", provider_session: "gone" })}\n`, {
      mode: 0o600,
    });
    const old = new Date(Date.now() - 60_000);
    utimesSync(ticket, old, old);
    const doctor = repo.mj(["doctor"]);
    expect(doctor.status).toBe(10);
    expect(doctor.stdout + doctor.stderr).toContain(".ai/local/state/hook-work/end--mx0000aa-0123abcd.work");
    expect(doctor.stdout + doctor.stderr).toContain("never finished");
    const status = repo.mj(["session", "status", "--json"]);
    expect(JSON.parse(status.stdout).handed_off).toEqual([
      {
        ticket: ".ai/local/state/hook-work/end--mx0000aa-0123abcd.work",
        event: "end",
        age_ms: expect.any(Number),
        worker_lost: true,
      },
    ]);
    expect(repo.mj(["session", "status"]).stdout).toContain("its worker died, see `majordomus doctor`");
    const start = fire(repo, "start", START, { MAJORDOMUS_LOG: "debug" }, { handOff: "leave" });
    expect(start.status).toBe(0);
    expect(start.stdout).toContain("## majordomus");
    expect(start.stderr).not.toContain("waited");
    expect(readFileSync(ticket, "utf8")).toContain('"provider_session":"gone"');
  });
});

describe("the start shim collects git status for the briefing", () => {
  const cacheFiles = (repo: Repo) =>
    readdirSync(repo.path(".ai/local/cache")).filter((f) => f.startsWith("git-status."));
  /** The start event as the shim execs it, told that `answer` holds git status. */
  const startWith = (repo: Repo, answer: string) =>
    repo.mj(
      [
        "capture",
        "session",
        "--provider",
        "claude-code",
        "--event",
        "start",
        "--repo",
        repo.dir,
        "--git-status",
        answer,
      ],
      { input: JSON.stringify(START) },
    );

  test("the briefing reports the working tree from the shim's git status, and its answer files are gone after", () => {
    using repo = captured();
    writeFileSync(repo.path("scratch.txt"), "new\n");
    const run = fire(repo, "start", START);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("working tree dirty");
    expect(cacheFiles(repo)).toEqual([]);
  });

  test("the binary reads the answer the shim names instead of asking git", () => {
    using repo = captured();
    // A clean checkout, but the answer file says one file changed: the briefing must follow the file.
    writeFileSync(repo.path(".ai/local/cache/git-status.4242"), "?? only-in-the-answer.txt\0");
    writeFileSync(repo.path(".ai/local/cache/git-status.4242.rc"), "0\n");
    const run = startWith(repo, repo.path(".ai/local/cache/git-status.4242"));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("working tree dirty");
    // The answer was read and removed; the one handed on to the start's worker goes when it has read it.
    settled(repo);
    expect(cacheFiles(repo)).toEqual([]);
  });

  test("a --git-status that is not the shim's own answer file is neither read nor removed", () => {
    using repo = captured();
    writeFileSync(repo.path("notes.txt"), "mine\n");
    repo.git("add", "notes.txt");
    repo.git("commit", "-q", "-m", "notes");
    const run = startWith(repo, repo.path("notes.txt"));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("working tree clean");
    expect(readFileSync(repo.path("notes.txt"), "utf8")).toBe("mine\n");
  });
});
