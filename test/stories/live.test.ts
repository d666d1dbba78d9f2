// Live sessions that share a checkout, told through the installed shims with the payloads the
// clients really send: a second session's briefing names the one at work, the one at work is told
// at its next prompt, once; a handover written by a live session is named as that session's; a
// third session after both ended is handed the newest account as usual.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture, hookEnv } from "../support/capture.ts";
import { ledger, ok } from "../support/layered.ts";
import { PROJECT } from "../support/env.ts";
import { Repo, scratch, sh } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");
const RESUME = fixture("SessionStart-resume-by-id.json");
const PROMPT = fixture("UserPromptSubmit-print.json");
const END = fixture("SessionEnd-other.json");
const codexPayload = (name: string) =>
  (JSON.parse(readFileSync(join(PROJECT, "test/fixtures/codex", name), "utf8")) as { payload: Record<string, unknown> })
    .payload;

const NEXT = "Wire the INI reader into src/config.ts.";
const handoverBody = `# Objective\nA config parser.\n\n# Current State\nThe reader is done.\n\n# Next Action\n${NEXT}\n`;

class Claude {
  constructor(
    readonly repo: Repo,
    readonly id: string,
  ) {}
  start(payload = START) {
    return fire(this.repo, "start", { ...payload, session_id: this.id }).stdout;
  }
  prompt(text = "go on") {
    const run = fire(this.repo, "prompt", {
      ...PROMPT,
      session_id: this.id,
      prompt_id: `p-${Math.random()}`,
      prompt: text,
    });
    expect(run.status).toBe(0);
    return run.stdout;
  }
  agent(args: string[], input?: string) {
    return ok(this.repo.mj(args, { input, env: { CLAUDE_CODE_SESSION_ID: this.id } }));
  }
  end() {
    return fire(this.repo, "end", { ...END, session_id: this.id });
  }
}

/** What a prompt hook handed the model: the JSON envelope's context, or the plain text. */
function told(stdout: string): string {
  if (stdout.trim() === "") return "";
  try {
    return (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
  } catch {
    return stdout;
  }
}

const episodeOf = (repo: Repo, providerSession: string) =>
  String(ledger(repo).find((e) => e.event === "session.started" && e.provider_session === providerSession)?.session_id);

describe("live sessions that share a checkout", () => {
  test("two Claude Code sessions: the new one's briefing names the one at work, which is told at its next prompt, once", () => {
    using repo = captured();
    ok(repo.mj(["start", "Parse the config files", "--scope", "src"]));
    const a = new Claude(repo, "cc-alpha");
    a.start();
    expect(told(a.prompt("start on the reader"))).toBe("");
    const aEpisode = episodeOf(repo, "cc-alpha");

    const b = new Claude(repo, "cc-beta");
    const briefing = b.start();
    expect(briefing).toContain("LIVE: 1 other session(s) at work beside this one");
    expect(briefing).toMatch(
      new RegExp(
        `- claude-code session cc-alpha \\(episode ${aEpisode}\\): opened (just now|\\d+m ago), last heard from (just now|\\d+m ago); task t-\\S+ \\("Parse the config files"; scope src\\); it has written no record yet\\.`,
      ),
    );
    const bEpisode = episodeOf(repo, "cc-beta");

    // The session at work hears of the new one with its next prompt, and only then.
    const notice = told(a.prompt("and the writer"));
    expect(notice).toContain("## majordomus — another session opened beside this one");
    expect(notice).toMatch(
      new RegExp(
        `- A claude-code session \\(episode ${bEpisode}\\) opened in this checkout (just now|\\d+m ago), on task t-\\S+ \\("Parse the config files"\\)\\.`,
      ),
    );
    expect(notice).toContain("(Told once.)");
    expect(told(a.prompt("one more"))).toBe("");
    // The new session is not told of itself, nor of anything at its own prompt.
    expect(told(b.prompt("hello"))).toBe("");
    expect(
      ledger(repo)
        .filter((e) => e.event === "session.shared")
        .map((e) => e.with),
    ).toEqual([[aEpisode]]);
    expect(
      ledger(repo)
        .filter((e) => e.event === "session.told")
        .map((e) => e.of),
    ).toEqual([[bEpisode]]);

    // A writes its handover while B is at work: B's next briefing names it as A's, not the last session's.
    a.agent(["handover"], handoverBody);
    const again = b.start(RESUME);
    expect(again).toContain(`Its Next Action, in its author's own words, quoted:\n> ${NEXT}`);
    expect(again).toMatch(
      new RegExp(
        `It was written by another session still at work in this checkout \\(claude-code, episode ${aEpisode}, last heard from (just now|\\d+m ago)\\): its own account of work going on, not a previous session's\\.`,
      ),
    );
    // context and the read side say the same.
    expect(b.agent(["context"]).stdout).toContain(
      `It was written by another session still at work in this checkout (claude-code, episode ${aEpisode}`,
    );

    // A prompt hook killed between taking its notices and removing them left them behind: the close removes them.
    const notices = repo.path(".ai/local/state/session-notices");
    writeFileSync(`${notices}/${aEpisode}.jsonl.taken-1-abcd`, "{}\n");
    // Both end; a third session is handed the newest account as any next session is.
    a.end();
    expect(readdirSync(notices).filter((f) => f.startsWith(aEpisode))).toEqual([]);
    b.end();
    const c = new Claude(repo, "cc-gamma").start();
    expect(c).not.toContain("LIVE:");
    expect(c).not.toContain("still at work");
    expect(c).toContain(`Its Next Action, in its author's own words, quoted:\n> ${NEXT}`);
  }, 450_000);

  test("a Codex session and a Claude Code session in one checkout are told of each other", () => {
    using repo = captured();
    ok(repo.mj(["capture", "install", "--provider", "codex"], { env: hookEnv() }));
    const claude = new Claude(repo, "cc-alpha");
    claude.start();
    claude.prompt("working");
    const claudeEpisode = episodeOf(repo, "cc-alpha");

    const codexStart = codexPayload("SessionStart.startup.json");
    const codexSession = String(codexStart.session_id);
    const shim = (name: string) => repo.path(".codex/hooks", name);
    const started = sh(
      repo.dir,
      shim("majordomus-session-start"),
      [],
      JSON.stringify({ ...codexStart, cwd: repo.dir }),
      hookEnv(),
    );
    expect(started.status).toBe(0);
    const codexBriefing = told(started.stdout);
    expect(codexBriefing).toContain("LIVE: 1 other session(s) at work beside this one");
    expect(codexBriefing).toContain(`- claude-code session cc-alpha (episode ${claudeEpisode})`);
    const codexEpisode = episodeOf(repo, codexSession);

    const notice = told(claude.prompt("still here"));
    expect(notice).toContain(`- A codex session (episode ${codexEpisode}) opened in this checkout`);
    expect(told(claude.prompt("and again"))).toBe("");

    // Codex's own next prompt hands it nothing: it was told in its briefing.
    const prompted = sh(
      repo.dir,
      shim("majordomus-capture"),
      [],
      JSON.stringify({ ...codexPayload("UserPromptSubmit.json"), cwd: repo.dir }),
      hookEnv(),
    );
    expect(prompted.status).toBe(0);
    expect(prompted.stdout).toBe("");
  }, 450_000);

  test("an episode nobody has heard from within session.live_within is not live; without the key nobody is told", () => {
    using repo = captured();
    const a = new Claude(repo, "cc-alpha");
    a.start();
    // Its client was last heard from long ago: the ledger is rewritten as if it had been.
    const path = repo.path(".ai/local/state/ledger.jsonl");
    const old = readFileSync(path, "utf8").replace(/"ts":"[^"]+"/g, '"ts":"2026-01-01T00:00:00.000Z"');
    Bun.write(path, old);
    expect(new Claude(repo, "cc-beta").start()).not.toContain("LIVE:");

    const policy = repo.path(".ai/repo/policy.yaml");
    Bun.write(policy, readFileSync(policy, "utf8").replace(/^\s*live_within:.*\n/m, ""));
    const c = new Claude(repo, "cc-gamma");
    c.start();
    c.prompt("busy");
    expect(new Claude(repo, "cc-delta").start()).not.toContain("LIVE:");
    expect(told(c.prompt("still busy"))).toBe("");
  }, 450_000);

  test("sessions in two worktrees are told of each other only when their task scopes overlap", () => {
    using repo = captured();
    ok(repo.mj(["start", "The parser", "--scope", "src/parser"]));
    const a = new Claude(repo, "cc-main");
    a.start();
    a.prompt("working in main");
    const mainEpisode = episodeOf(repo, "cc-main");

    const other = new Repo(`${repo.dir}-wt`);
    try {
      repo.git("worktree", "add", "-q", "-b", "side", other.dir);
      ok(other.mj(["capture", "install"]));
      // Scopes apart: nobody is told.
      ok(other.mj(["start", "The docs", "--scope", "docs"]));
      const apart = new Claude(other, "cc-side").start();
      expect(apart).not.toContain("LIVE:");
      expect(told(a.prompt("more"))).toBe("");
      ok(other.mj(["handover", "--derive", "--close"]));
      fire(other, "end", { ...END, session_id: "cc-side" });

      // Scopes that overlap: the new session hears of the one in the other worktree, and that one of it.
      ok(other.mj(["start", "Parser errors", "--scope", "src"]));
      const overlapping = new Claude(other, "cc-side-2").start();
      expect(overlapping).toContain("LIVE: 1 other session(s) at work beside this one");
      expect(overlapping).toContain(
        `- claude-code session cc-main in the worktree ${repo.dir}, whose task overlaps yours, (episode ${mainEpisode})`,
      );
      expect(overlapping).toContain("task t-");
      const notice = told(a.prompt("and more"));
      expect(notice).toContain(`opened in the worktree ${other.dir}, whose task overlaps yours`);
    } finally {
      sh(repo.dir, "git", ["worktree", "remove", "--force", other.dir]);
      other[Symbol.dispose]();
    }
  }, 450_000);

  test("a link planted where the notices folder belongs (here, or in the other worktree) is never written through; the sessions go on", () => {
    using repo = captured();
    const outside = scratch("majordomus-outside-");
    try {
      ok(repo.mj(["start", "The parser", "--scope", "src"]));
      symlinkSync(outside, repo.path(".ai/local/state/session-notices"));
      const a = new Claude(repo, "cc-one");
      a.start();
      a.prompt("working");
      // The second session's start would leave the first a notice: the link is refused, nothing lands outside.
      const briefing = new Claude(repo, "cc-two").start();
      expect(briefing).toContain("LIVE: 1 other session(s) at work beside this one");
      expect(told(a.prompt("more"))).toBe("");
      expect(readdirSync(outside)).toEqual([]);

      // In another worktree of the repository, its layer is checked as its own hooks check it.
      const other = new Repo(`${repo.dir}-wt`);
      try {
        repo.git("worktree", "add", "-q", "-b", "side", other.dir);
        ok(other.mj(["capture", "install"]));
        ok(other.mj(["start", "Parser errors", "--scope", "src"]));
        symlinkSync(outside, other.path(".ai/local/state/session-notices"));
        const side = new Claude(other, "cc-side");
        side.start();
        side.prompt("on the side");
        expect(new Claude(repo, "cc-three").start()).toContain("whose task overlaps yours");
        expect(readdirSync(outside)).toEqual([]);
        // Its whole state folder a link (to the very state it had): that worktree is not read through it.
        const moved = `${outside}-state`;
        renameSync(other.path(".ai/local/state"), moved);
        symlinkSync(moved, other.path(".ai/local/state"));
        const fourth = new Claude(repo, "cc-four").start();
        expect(fourth).toContain("## majordomus");
        expect(fourth).not.toContain("whose task overlaps yours");
        rmSync(moved, { recursive: true, force: true });
      } finally {
        sh(repo.dir, "git", ["worktree", "remove", "--force", other.dir]);
        other[Symbol.dispose]();
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 450_000);

  test("many sessions heard from at once (a script, a benchmark): the newest five are named and told, the rest left to session status", () => {
    using repo = captured();
    const many = Array.from({ length: 7 }, (_, i) => new Claude(repo, `cc-${i}`));
    for (const c of many) c.start();
    const briefing = new Claude(repo, "cc-new").start();
    expect(briefing).toContain("LIVE: 5 other session(s) at work beside this one");
    expect(briefing).toContain(
      "(The 5 heard from most recently are named; `majordomus session status` lists every open episode.)",
    );
    for (const i of [2, 3, 4, 5, 6]) expect(briefing).toContain(`- claude-code session cc-${i} (`);
    expect(briefing).not.toContain("- claude-code session cc-0 (");
    const newest = episodeOf(repo, "cc-new");
    expect(told(many[6]!.prompt())).toContain(`(episode ${newest}) opened in this checkout`);
    // The oldest was told of those that opened while it was among the newest five, not of this one.
    expect(told(many[0]!.prompt())).not.toContain(newest);
  }, 450_000);
});
