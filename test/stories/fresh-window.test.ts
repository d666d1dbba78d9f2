// The fresh window, told as the Claude Code mod lives it: the mod asks the binary (`capture window`,
// with the client's hook environment) whether the fresh window is on, and for the boot that replaces
// a compaction. Through the installed shims and the compiled binary, across sessions.
import type { WindowAnswer } from "../../src/hooks/window.ts";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { captured, fire, fixture, hookEnv, statusRow } from "../support/capture.ts";
import { ledger, ok, records } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";
import { BIN } from "../support/env.ts";

const START = fixture("SessionStart-startup.json");
const COMPACT = fixture("PreCompact-auto.json");
const END = fixture("SessionEnd-other.json");
const NEXT = "Port the INI reader to the new tokenizer; start with test/ini.test.ts.";
const HANDOVER = `# Objective\nA config parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${NEXT}\n`;

type Answer = WindowAnswer;

function ask(repo: Repo, session: string, action: "status" | "boot", trigger = "auto"): Answer {
  const run = ok(
    repo.mj(
      [
        "capture",
        "window",
        "--action",
        action,
        ...(action === "boot" ? ["--trigger", trigger] : []),
        "--repo",
        repo.dir,
      ],
      { env: { CLAUDE_CODE_SESSION_ID: session } },
    ),
  );
  return JSON.parse(run.stdout) as Answer;
}

/** The repository asks for the fresh window (tracked policy); `consent` is the person's own yes, in the local half. */
function freshWindow(repo: Repo, consent: boolean) {
  const path = repo.path(".ai/repo/policy.yaml");
  writeFileSync(path, readFileSync(path, "utf8").replace(/^session:\n/m, "session:\n  fresh_window: true\n"));
  repo.git("commit", "-q", "-am", "Ask for the fresh window");
  if (consent) writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
}

const transcript = "/home/someone/.claude/projects/-repo/cc-fresh.jsonl";

describe("the fresh window: what the mod is told, and what the next window starts from", () => {
  test("off unless the policy asks and the person consents locally; while off, a boot is refused and writes nothing", () => {
    using repo = captured();
    fire(repo, "start", { ...START, session_id: "cc-fresh", transcript_path: transcript });
    const off = ask(repo, "cc-fresh", "status");
    expect(off.fresh_window).toMatchObject({ on: false, asked: false });
    expect(off.fresh_window.why).toContain("does not set session.fresh_window: true");
    expect(off).toMatchObject({ ok: true, window: 0, manual: "veto", transcript: true });
    const before = ledger(repo).length;
    const refused = ask(repo, "cc-fresh", "boot");
    expect(refused.ok).toBe(false);
    expect(refused.boot).toBeUndefined();
    expect(ledger(repo).length).toBe(before);
    expect(records(repo, "checkpoints").length).toBe(0);

    // Asked by the tracked policy alone: still off, and the answer says where to consent.
    freshWindow(repo, false);
    const asked = ask(repo, "cc-fresh", "status");
    expect(asked.fresh_window).toMatchObject({ on: false, asked: true });
    expect(asked.fresh_window.why).toContain("consent.yaml");
    // A consent file git tracks (force-added by whoever wrote the repository) grants nothing.
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
    repo.git("add", "-f", ".ai/local/state/consent.yaml");
    const tracked = ask(repo, "cc-fresh", "status");
    expect(tracked.fresh_window.on).toBe(false);
    expect(tracked.fresh_window.why).toContain("tracked by git");
    repo.git("rm", "-q", "--cached", ".ai/local/state/consent.yaml");
    expect(ask(repo, "cc-fresh", "status").fresh_window.on).toBe(true);
    // `capture status` says where it stands, beside the mod it needs.
    const mod = () => statusRow(repo, "claude-code", "mod", hookEnv(), ["--no-verify"]).reason;
    expect(mod()).toContain("; the fresh window is on");
    rmSync(repo.path(".ai/local/state/consent.yaml"));
    expect(mod()).toMatch(
      /; the fresh window is off: session.fresh_window is asked by .*, but not granted in .*consent.yaml/,
    );
  });

  test("on: the boot checkpoints inside the episode, opens window :1, quotes the agent's own handover, and closes nothing; a resume goes on counting", () => {
    using repo = captured();
    freshWindow(repo, true);
    expect(fire(repo, "start", { ...START, session_id: "cc-fresh", transcript_path: transcript }).status).toBe(0);
    const secret = "the person typed PINEAPPLE-7731 in a prompt";
    fire(repo, "prompt", { session_id: "cc-fresh", prompt: secret, hook_event_name: "UserPromptSubmit" });
    ok(repo.mj(["handover"], { input: HANDOVER, env: { CLAUDE_CODE_SESSION_ID: "cc-fresh" } }));
    const status = ask(repo, "cc-fresh", "status");
    expect(status).toMatchObject({ window: 0, fresh_window: { on: true } });

    const boot = ask(repo, "cc-fresh", "boot");
    expect(boot.ok).toBe(true);
    expect(boot.window).toBe(1);
    expect(boot.window_id).toBe(`${status.episode}:1`);
    const text = boot.boot!;
    expect(text.split("\n")[0]).toBe(`# majordomus fresh window ${status.episode}:1`);
    expect(text).toContain("## majordomus — what this repository already knows");
    expect(text).toContain(`Episode ${status.episode} (resumed)`);
    expect(text).toMatch(
      /The agent's own handover, \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, exact, fresh, 0m old, written in episode s-\S+\), in its author's own words:/,
    );
    expect(text).toContain(`> # Next Action\n> ${NEXT}`);
    // Never the conversation: no prompt text, no transcript path.
    expect(text).not.toContain("PINEAPPLE");
    expect(text).not.toContain(transcript);

    // The settings-level compaction hook does not run when the mod replaces a compaction: the boot wrote its checkpoint, in the episode.
    const lines = ledger(repo);
    const checkpoint = lines.filter((e) => e.event === "task.checkpoint");
    expect(checkpoint.length).toBe(1);
    expect(checkpoint[0]!.session).toBe(status.episode);
    expect(boot.checkpoint).toMatch(/^\.ai\/local\/state\/checkpoints\//);
    expect(lines.filter((e) => e.event === "session.window")).toEqual([
      expect.objectContaining({
        session_id: status.episode,
        window: 1,
        trigger: "fresh_window",
        client_trigger: "auto",
      }),
    ]);
    expect(lines.some((e) => e.event === "session.closed")).toBe(false);

    // The agent writes a newer handover in window :1; the next fresh window quotes that one, not the first.
    const later = "Now wire the INI reader into the CLI; start with src/cli/config.ts.";
    ok(repo.mj(["handover"], { input: HANDOVER.replace(NEXT, later), env: { CLAUDE_CODE_SESSION_ID: "cc-fresh" } }));
    const second = ask(repo, "cc-fresh", "boot");
    expect(second.window_id).toBe(`${status.episode}:2`);
    expect(second.boot).toContain(`> # Next Action\n> ${later}`);
    expect(second.boot).not.toContain(NEXT);

    // The client's own compaction (the switch off, or a failed boot) also starts a new window.
    fire(repo, "compact", { ...COMPACT, session_id: "cc-fresh" });
    expect(ask(repo, "cc-fresh", "status").window).toBe(3);
    // `claude -c`: the same episode, and its window ordinal restored.
    fire(repo, "start", { ...START, session_id: "cc-fresh", source: "resume", transcript_path: transcript });
    expect(ask(repo, "cc-fresh", "status")).toMatchObject({ episode: status.episode, window: 3 });

    // The session ends; the next one starts at window :0 and its briefing still gives the agent's words.
    fire(repo, "end", { ...END, session_id: "cc-fresh" });
    const next = fire(repo, "start", { ...START, session_id: "cc-next" }).stdout;
    expect(next).toContain(`Its Next Action, in its author's own words, quoted:\n> ${later}`);
    expect(ask(repo, "cc-next", "status")).toMatchObject({ window: 0 });
    // The transcript path stayed in the local half: the closed record names no part of it.
    const closed = readFileSync(
      repo.path(
        ".ai/repo/sessions",
        readdirSync(repo.path(".ai/repo/sessions")).find((f) => f.endsWith(".md") && f !== "README.md")!,
      ),
      "utf8",
    );
    expect(closed).not.toContain(".jsonl");
  });

  test("a control character in a handover reaches the boot escaped, as in the briefing, never raw", () => {
    using repo = captured();
    freshWindow(repo, true);
    fire(repo, "start", { ...START, session_id: "cc-esc" });
    ok(
      repo.mj(["handover"], {
        input: HANDOVER.replace(NEXT, `Run the tests\u001b[2J then fix ${NEXT}`),
        env: { CLAUDE_CODE_SESSION_ID: "cc-esc" },
      }),
    );
    const text = ask(repo, "cc-esc", "boot").boot!;
    expect(text).not.toContain("\u001b");
    expect(text).toContain("Run the tests\\u001b[2J then fix");
  });

  test("without an agent's handover the boot says there is none to quote, and points at `majordomus handover`", () => {
    using repo = captured();
    freshWindow(repo, true);
    fire(repo, "start", { ...START, session_id: "cc-bare" });
    const boot = ask(repo, "cc-bare", "boot", "plugin");
    expect(boot.ok).toBe(true);
    expect(boot.boot).toContain(
      "No handover written by an agent or a person is on record for this worktree and branch",
    );
    expect(ledger(repo).find((e) => e.event === "session.window")).toMatchObject({ client_trigger: "plugin" });
  });

  test("windows counted at once are all counted: sixteen boots racing end at window :16, with sixteen window lines in order", async () => {
    using repo = captured();
    freshWindow(repo, true);
    fire(repo, "start", { ...START, session_id: "cc-race" });
    const RACERS = 16;
    const counted = Array.from({ length: RACERS }, (_, i) => i + 1);
    const env = { ...process.env, CLAUDE_CODE_SESSION_ID: "cc-race" } as Record<string, string>;
    const runs = Array.from({ length: RACERS }, () =>
      Bun.spawn([BIN, "capture", "window", "--action", "boot", "--trigger", "auto", "--repo", repo.dir], {
        cwd: repo.dir,
        env,
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const answers = await Promise.all(runs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as Answer));
    expect(answers.map((a) => a.window ?? 0).sort((a, b) => a - b)).toEqual(counted);
    expect(ask(repo, "cc-race", "status").window).toBe(RACERS);
    expect(
      ledger(repo)
        .filter((e) => e.event === "session.window")
        .map((e) => e.window),
    ).toEqual(counted);
  });

  test("a session with no episode (its start never ran) gets a refusal, and the client's summary runs", () => {
    using repo = captured();
    freshWindow(repo, true);
    const boot = ask(repo, "cc-nobody", "boot");
    expect(boot.ok).toBe(false);
    expect(boot.why).toContain("no open episode");
  });
});
