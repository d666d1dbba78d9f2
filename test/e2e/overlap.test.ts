// Hooks that overlap, as clients fire them: `/clear` runs the end and the next start 0-9 ms apart,
// a compaction races the end, and a container's exit kills the start's worker before the end comes.
// Each is run many times through the real shims and the compiled binary: the newest account is the
// one handed on, and the closed record holds every checkpoint, every time.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { captured, fire, fixture, hookEnv, pendingWork, sessionFiles, settled, SHIMS } from "../support/capture.ts";
import { ledger } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");
const CLEAR_END = fixture("SessionEnd-clear.json");
const CLEAR_START = fixture("SessionStart-clear.json");

/** Run a shim as the client does, without waiting for it: its stdout and exit code when it is done. */
async function launch(
  repo: Repo,
  shim: keyof typeof SHIMS,
  payload: Record<string, unknown>,
): Promise<{ status: number; stdout: string }> {
  const proc = Bun.spawn([join(repo.dir, SHIMS[shim])], {
    cwd: repo.dir,
    env: { ...process.env, ...hookEnv() },
    stdin: new Blob([JSON.stringify(payload)]),
    stdout: "pipe",
    stderr: "ignore",
  });
  const [stdout, status] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { status, stdout };
}

const TRIALS = 20;

describe("overlapping events", () => {
  test(`/clear: the end and the next start 0-9 ms apart; the new briefing hands on the record that end just derived (${TRIALS} trials)`, async () => {
    const wrong: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      using repo = captured();
      // The session being cleared, with an earlier handover of its own on record.
      fire(repo, "start", { ...START, session_id: CLEAR_END.session_id });
      fire(repo, "end", { ...CLEAR_END, reason: "other" });
      fire(repo, "start", { ...START, session_id: CLEAR_END.session_id, source: "resume" });
      const end = launch(repo, "end", CLEAR_END);
      await Bun.sleep(i % 10);
      const start = await launch(repo, "start", CLEAR_START);
      expect((await end).status).toBe(0);
      expect(start.status).toBe(0);
      settled(repo);
      const derived = ledger(repo)
        .filter((e) => e.event === "task.handed_over")
        .at(-1)!;
      const path = String(derived.handover_path ?? derived.path);
      if (!start.stdout.includes(`Handover ${path} `)) wrong.push(`trial ${i}: the briefing does not hand on ${path}`);
    }
    expect(wrong).toEqual([]);
  }, 600_000);

  test(`a compaction racing the end: the closed record lists the compaction's checkpoint (${TRIALS} trials)`, async () => {
    const wrong: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      using repo = captured();
      fire(repo, "start", START);
      const compact = launch(repo, "compact", {
        session_id: START.session_id,
        hook_event_name: "PreCompact",
        trigger: "auto",
      });
      await Bun.sleep(i % 10);
      const end = await launch(repo, "end", fixture("SessionEnd-other.json"));
      expect((await compact).status).toBe(0);
      expect(end.status).toBe(0);
      settled(repo);
      const record = readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8");
      const checkpoints = ledger(repo)
        .filter((e) => e.event === "task.checkpoint")
        .map((e) => String(e.checkpoint_path));
      if (checkpoints.length !== 2) wrong.push(`trial ${i}: ${checkpoints.length} checkpoint(s)`);
      for (const c of checkpoints) if (!record.includes(c)) wrong.push(`trial ${i}: the record lacks ${c}`);
    }
    expect(wrong).toEqual([]);
  }, 600_000);

  test("a container's exit kills the start's worker: the end (killed at 3 s, Codex's budget) takes its work over at once and writes one closed record with its checkpoint, every time", () => {
    for (let i = 0; i < 5; i++) {
      using repo = captured();
      const payload = repo.path("start.json");
      writeFileSync(payload, JSON.stringify(START));
      // The start inside a PID namespace that ends as soon as the hook answers: its worker dies with it.
      const run = spawnSync(
        "unshare",
        [
          "--pid",
          "--fork",
          "--mount-proc",
          "sh",
          "-c",
          `${JSON.stringify(join(repo.dir, SHIMS.start))} < ${JSON.stringify(payload)} >/dev/null`,
        ],
        { cwd: repo.dir, env: { ...process.env, ...hookEnv() }, encoding: "utf8" },
      );
      if (run.status !== 0 && /Operation not permitted|cannot|unshare failed/i.test(run.stderr)) {
        console.warn(`skipped: no PID namespace here (${run.stderr.trim()})`);
        return;
      }
      expect(run.status).toBe(0);
      const endPayload = repo.path("end.json");
      writeFileSync(endPayload, JSON.stringify(fixture("SessionEnd-other.json")));
      const started = Date.now();
      const end = spawnSync("timeout", ["-s", "KILL", "3", join(repo.dir, SHIMS.end)], {
        cwd: repo.dir,
        env: { ...process.env, ...hookEnv() },
        input: readFileSync(endPayload),
        encoding: "utf8",
      });
      expect(end.status).toBe(0);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(sessionFiles(repo).length).toBe(1);
      const record = readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8");
      for (const c of ledger(repo)
        .filter((e) => e.event === "task.checkpoint")
        .map((e) => String(e.checkpoint_path)))
        expect(record).toContain(c);
      // The lost start's work was done by the end: the episode's working context was frozen, and no ticket is left.
      expect(
        readdirSync(repo.path(".ai/local/session-contexts")).filter((f) => f.endsWith(".md") && f !== "README.md")
          .length,
      ).toBe(1);
      expect(pendingWork(repo)).toEqual([]);
    }
  }, 600_000);

  for (const later of ["start", "prompt", "compact"] as const) {
    test(`a close an end claimed and never wrote (its taker died) is finished by the next ${later} of the checkout`, () => {
      using repo = captured();
      fire(repo, "start", START);
      const opened = ledger(repo).find((e) => e.event === "session.started")!;
      // What an end killed right after its claim leaves: the claim, its taker gone.
      mkdirSync(repo.path(".ai/local/state/sessions-closing"), { recursive: true });
      const claim = {
        schema: "close-claim/v1",
        session_id: opened.session_id,
        provider: "claude-code",
        provider_session: START.session_id,
        reason: "other",
        outcome: "interrupted",
        claimed_at: new Date().toISOString(),
        by: { pid: 2 ** 22 + 1 },
      };
      writeFileSync(
        repo.path(`.ai/local/state/sessions-closing/${opened.session_id}.claim`),
        `${JSON.stringify(claim)}\n`,
      );
      const other = "9b0e6a52-0d54-4a3b-9d0b-7a7f2f0c0c01";
      const payload =
        later === "prompt"
          ? { session_id: other, prompt: "hi", prompt_id: "p-1", hook_event_name: "UserPromptSubmit" }
          : later === "start"
            ? { ...START, session_id: other }
            : { session_id: other, hook_event_name: "PreCompact", trigger: "auto" };
      expect(fire(repo, later, payload).status).toBe(0);
      expect(sessionFiles(repo).length).toBe(1);
      expect(readdirSync(repo.path(".ai/local/state/sessions-closing"))).toEqual([]);
    });
  }
});
