// Multi-session stories, told through the installed shims with the payloads Claude Code 2.1.332
// really sends: each asks what the *next* session's briefing says after the previous one ended.
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { captured, fire, fixture, hookEnv, sessionFiles } from "../support/capture.ts";
import { ledger, ok } from "../support/layered.ts";
import { Repo, scratch, sh } from "../support/repo.ts";
import { BIN } from "../support/env.ts";

const START = fixture("SessionStart-startup.json");
const COMPACT = fixture("PreCompact-auto.json");
const END = fixture("SessionEnd-other.json");
const END_EXIT = fixture("SessionEnd-prompt_input_exit.json");

const NEXT =
  "Write the tokenizer tests in test/tokenizer.test.ts first.\n\nThen make `parse('a b')` return two tokens; the failing case is in the ticket.";
const authored = (next = NEXT) =>
  `# Objective\nA parser for the config files.\n\n# Current State\nThe lexer is done; the tokenizer is not.\n\n# Next Action\n${next}\n`;

/** A client session: its start, what its agent runs (inside the session, as the Bash tool does), its compaction and its end. */
class Session {
  constructor(
    readonly repo: Repo,
    readonly id: string,
  ) {}
  start(source = "startup") {
    return fire(this.repo, "start", { ...START, session_id: this.id, source });
  }
  agent(args: string[], input?: string) {
    return ok(this.repo.mj(args, { input, env: { CLAUDE_CODE_SESSION_ID: this.id } }));
  }
  compact() {
    return fire(this.repo, "compact", { ...COMPACT, session_id: this.id });
  }
  end(payload = END) {
    return fire(this.repo, "end", { ...payload, session_id: this.id });
  }
}

/** Record text as the briefing quotes it: each line behind `> ` (a blank one as `>`). */
const asQuote = (text: string) =>
  text
    .split("\n")
    .map((l) => (l === "" ? ">" : `> ${l}`))
    .join("\n");

function expectAuthored(briefing: string, next = NEXT) {
  expect(briefing).toMatch(/Handover \.ai\/local\/state\/handovers\/\S+ \(authored, /);
  expect(briefing).toContain(`Its Next Action, in its author's own words, quoted:\n${asQuote(next)}\n`);
}

describe("the agent's own handover survives the end of its session", () => {
  test("authored, then the session ends: the next briefing, handover --resolve and context give the authored Next Action verbatim", () => {
    using repo = captured();
    const one = new Session(repo, "cc-one");
    one.start();
    one.agent(["handover"], authored());
    one.end();
    // The end derived a continuation record, newer than the authored one.
    expect(
      ledger(repo)
        .filter((e) => e.event === "task.handed_over")
        .map((e) => e.how),
    ).toEqual(["authored", "derived"]);

    const next = new Session(repo, "cc-two").start().stdout;
    expectAuthored(next);
    expect(next).toMatch(
      /Since then: a derived record \.ai\/local\/state\/handovers\/\S+ \(0m old, written when episode s-\S+ ended or compacted\)/,
    );
    expect(next).not.toContain("Run `majordomus context` for the whole picture, then read the changes above");

    const resolved = repo.mj(["handover", "--resolve"]).stdout;
    expect(resolved).toContain(", authored, in episode s-");
    expect(resolved).toContain(`# Next Action\n${NEXT}`);
    expect(resolved).toMatch(/Since then: derived \S+ \(0m ago, episode s-/);
    const json = JSON.parse(repo.mj(["handover", "--resolve", "--json"]).stdout);
    expect(json.record.how).toBe("authored");
    expect(json.record.next_action.join("\n")).toBe(NEXT);
    expect(json.since.how).toBe("derived");
    expect(json.candidates.find((c: { verdict: string }) => c.verdict === "superseded").reason).toContain(
      "derived after the selected authored record",
    );

    const context = repo.mj(["context"]).stdout;
    expect(context).toContain("Next Action, in its author's own words, quoted:");
    expect(context).toContain(NEXT.split("\n")[0]!);
    expect(context).toMatch(/since then: derived \S+/);
  });

  test("compaction, then the end: still the authored Next Action", () => {
    using repo = captured();
    const one = new Session(repo, "cc-one");
    one.start();
    one.agent(["handover"], authored());
    one.compact();
    one.end();
    expect(ledger(repo).filter((e) => e.event === "task.checkpoint").length).toBe(2);
    expectAuthored(new Session(repo, "cc-two").start().stdout);
  });

  test("two windows of one checkout: the one that did not write a handover ends last; the next briefing keeps the other's words", () => {
    using repo = captured();
    const a = new Session(repo, "window-a");
    const b = new Session(repo, "window-b");
    a.start();
    b.start();
    a.agent(["handover"], authored());
    a.end(END_EXIT);
    b.end();
    expect(
      ledger(repo)
        .filter((e) => e.event === "task.handed_over")
        .map((e) => e.how),
    ).toEqual(["authored", "derived", "derived"]);
    expectAuthored(new Session(repo, "window-c").start().stdout);
  });

  test("a long authored Next Action after an end is quoted whole, line for line", () => {
    using repo = captured();
    const long = Array.from(
      { length: 30 },
      (_, i) => `${i + 1}. step ${i + 1} of the migration, with \`a command\` to run`,
    ).join("\n");
    const one = new Session(repo, "cc-one");
    one.start();
    one.agent(["handover"], authored(long));
    one.end();
    const next = new Session(repo, "cc-two").start().stdout;
    expectAuthored(next, long);
    expect(next).not.toContain("withheld");
  });

  test("a newer authored handover replaces the older one; a derived record of another task does not hide behind an old authored one", () => {
    using repo = captured();
    const one = new Session(repo, "cc-one");
    one.start();
    one.agent(["handover"], authored("First plan."));
    one.agent(["handover"], authored("Second plan."));
    one.end();
    expectAuthored(new Session(repo, "cc-two").start().stdout, "Second plan.");
    // A task starts after the authored record (which names no task): the end's derived record is about the task.
    ok(repo.mj(["start", "port the lexer", "--scope", "src"]));
    const three = new Session(repo, "cc-three");
    three.start();
    three.end();
    const next = new Session(repo, "cc-four").start().stdout;
    expect(next).toMatch(/Handover \S+ \(derived, /);
    expect(next).toContain("> Continue task t-");
    expect(next).not.toContain("Second plan.");
  });
});

describe("tier 1: another worktree of the same branch", () => {
  test("the agent wrote a handover in the main worktree and its session ended: a second worktree on the branch is briefed with the authored words", () => {
    using repo = captured();
    const one = new Session(repo, "cc-main");
    one.start();
    one.agent(["handover"], authored());
    one.end();
    const wt = join(scratch("majordomus-wt-"), "linked");
    try {
      repo.git("worktree", "add", "-q", "-f", wt, "main");
      const linked = new Repo(wt);
      const briefing = fire(linked, "start", { ...START, session_id: "cc-linked" }).stdout;
      expect(briefing).toMatch(/Handover \.\.\/\S+ \(authored, same_branch, exact, fresh, 0m old\)/);
      expect(briefing).toContain(`in its author's own words, quoted:\n${asQuote(NEXT)}\n`);
    } finally {
      rmSync(dirname(wt), { recursive: true, force: true });
    }
  });
});

describe("a derived Next Action says what it is derived from", () => {
  test("with nothing authored: the task, the files changed and the newest checkpoint, never text that is not there", () => {
    using repo = captured();
    ok(repo.mj(["start", "teach the parser comments", "--scope", "src"]));
    const one = new Session(repo, "cc-one");
    one.start();
    writeFileSync(repo.path("src-parser.txt"), "wip\n");
    one.end();
    const handovers = readdirSync(repo.path(".ai/local/state/handovers")).filter(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    const body = readFileSync(repo.path(".ai/local/state/handovers", handovers[0]!), "utf8");
    const next = /# Next Action\n\n([\s\S]*?)\n# /.exec(body)![1]!;
    expect(next).toContain("Continue task t-");
    expect(next).toContain(": teach the parser comments");
    expect(next).toContain("1 changed file(s) (src-parser.txt)");
    expect(next).toMatch(
      /The newest checkpoint \(\.ai\/local\/state\/checkpoints\/\S+\) is quoted under this record's Current State; `majordomus checkpoint --show` prints it\./,
    );
    expect(body).toContain("Newest checkpoint, written just now (.ai/local/state/checkpoints/");
    expect(body).not.toContain("in the future");
    expect(next).not.toContain("the changes above");
  });

  test("with no task and no changes it says that nothing was left in progress", () => {
    using repo = captured();
    const one = new Session(repo, "cc-one");
    one.start();
    one.end();
    const next = new Session(repo, "cc-two").start().stdout;
    expect(next).toContain(
      "derived by majordomus from the records; no one wrote it, quoted:\n> No task is active and the working tree has no changes: nothing was left in progress.",
    );
  });
});

describe("a task lives until it is finished", () => {
  test("across three client sessions, headless ends (reason other) included: every briefing names it, and finish --outcome partial works after", () => {
    using repo = captured();
    ok(repo.mj(["start", "migrate the config loader", "--scope", "src"]));
    for (const id of ["run-1", "run-2", "run-3"]) {
      const s = new Session(repo, id);
      const briefing = s.start().stdout;
      expect(briefing).toMatch(/Task t-\S+ \(active, profile implementation\): "migrate the config loader"/);
      s.end();
    }
    expect(readFileSync(repo.path(".ai/local/state/current.yaml"), "utf8")).toContain("outcome: active");
    expect(
      ledger(repo)
        .filter((e) => e.event === "task.handed_over")
        .every((e) => e.closed === false),
    ).toBe(true);
    const finished = repo.mj(["finish", "--outcome", "partial"]);
    expect(finished.status).toBe(0);
    expect(readFileSync(repo.path(".ai/local/state/current.yaml"), "utf8")).toContain("outcome: partial");
    // Only finish (or handover --close) ends it.
    expect(new Session(repo, "run-4").start().stdout).toContain("No active task.");
  });

  test("closed with the agent's own words (handover --close): they are the account after the task, across sessions, until a new task starts", () => {
    using repo = captured();
    ok(repo.mj(["start", "migrate the config loader", "--scope", "src"]));
    const closing = "Nothing is left on this task; take the next one from the issue list, starting with the oldest.";
    const one = new Session(repo, "close-1");
    one.start();
    one.agent(["handover", "--close"], authored(closing));
    one.end(END_EXIT);
    // The session's end derived a record of no task after it: it does not bury the agent's words.
    for (const id of ["close-2", "close-3"]) {
      const s = new Session(repo, id);
      const briefing = s.start().stdout;
      expect(briefing).toContain("No active task.");
      expect(briefing).toContain(`in its author's own words, quoted:\n${asQuote(closing)}`);
      expect(briefing).toContain("Since then: a derived record");
      s.end();
    }
    const explained = JSON.parse(ok(repo.mj(["handover", "--resolve", "--json"])).stdout);
    expect(explained.record.how).toBe("authored");
    expect(explained.candidates.find((c: { verdict: string }) => c.verdict === "selected").reason).toContain(
      "the authored record that closed task",
    );
    // The derived record written at an end points at the words it does not replace.
    const derived = readFileSync(repo.path(explained.since.path), "utf8");
    expect(derived).toContain(`The worker's own handover ${explained.record.path}`);
    // A new task is a new line of work: its own derived account, never the old closing words.
    ok(repo.mj(["start", "the next task", "--scope", "src"]));
    const next = new Session(repo, "close-4");
    next.start();
    next.end();
    const after = new Session(repo, "close-5").start().stdout;
    expect(after).toMatch(/Task t-\S+ \(active, profile implementation\): "the next task"/);
    expect(after).not.toContain(closing);
  });

  test("a handover detached from the active task (--no-task) is said, when written, not to be what the task's next briefing resumes from", () => {
    using repo = captured();
    ok(repo.mj(["start", "migrate the config loader", "--scope", "src"]));
    const s = new Session(repo, "detached-1");
    s.start();
    const written = repo.mj(["handover", "--no-task"], { input: authored(), env: { CLAUDE_CODE_SESSION_ID: s.id } });
    expect(written.status).toBe(0);
    expect(written.stderr).toMatch(/warning: task t-\S+ is active and this handover names no task/);
    expect(written.stderr).toContain("without --no-task");
    // Attached (no flag), nothing to warn about.
    expect(repo.mj(["handover"], { input: authored(), env: { CLAUDE_CODE_SESSION_ID: s.id } }).stderr).toBe("");
  });

  test("finished (finish --outcome) after an authored handover: the next briefing does not offer that handover's Next Action as the next step", () => {
    using repo = captured();
    ok(repo.mj(["start", "migrate the config loader", "--scope", "src"]));
    const one = new Session(repo, "fin-1");
    one.start();
    one.agent(["handover"], authored("Write the migration test next."));
    ok(repo.mj(["finish", "--outcome", "partial"]));
    one.end();
    const briefing = new Session(repo, "fin-2").start().stdout;
    expect(briefing).toContain("No active task.");
    expect(briefing).not.toContain("> Write the migration test next.");
  });

  test("the session ends, then the person finishes the task: the next briefing names the handover as history of a finished task and quotes no Next Action of it", () => {
    using repo = captured();
    ok(repo.mj(["start", "migrate the config loader", "--scope", "src"]));
    const one = new Session(repo, "fin-3");
    one.start();
    one.agent(["handover"], authored("Write the migration test next."));
    one.end();
    // Ended with the task still active: its derived record and the authored one are both of the task.
    expect(new Session(repo, "fin-4").start().stdout).toContain("> Write the migration test next.");
    new Session(repo, "fin-4").end();
    ok(repo.mj(["finish", "--outcome", "completed"]));
    const briefing = new Session(repo, "fin-5").start().stdout;
    expect(briefing).toContain("No active task.");
    expect(briefing).not.toContain("Write the migration test next.");
    expect(briefing).toMatch(/Historical handover \S+ \(authored, /);
    // It names the note the task was finished with, where the account of how it ended is kept.
    const finished =
      /Its task (t-\S+) was finished \(completed\) after it was written; the note it was finished with is (\.ai\/local\/state\/completed\/t-\S+\.md)\. It is context, not an instruction/.exec(
        briefing,
      );
    expect(finished).not.toBeNull();
    expect(finished![2]).toBe(`.ai/local/state/completed/${finished![1]}.md`);
    expect(readFileSync(repo.path(finished![2]!), "utf8")).toContain("# Next Action");
    // Every surface tells the same: the record as resolved, and the read side's account.
    const resolved = ok(repo.mj(["handover", "--resolve"])).stdout;
    expect(resolved).toContain(
      `HISTORY: its task ${finished![1]} was finished (completed) after it was written; the note it was finished with is ${finished![2]}; its Next Action is withheld.`,
    );
    expect(resolved).not.toContain("Write the migration test next.");
    const json = JSON.parse(ok(repo.mj(["handover", "--resolve", "--json"])).stdout);
    expect(json.record.next_action).toBeUndefined();
    expect(json.record.next_action_withheld).toMatch(
      /^Its task t-\S+ was finished \(completed\) after it was written; the note it was finished with is \.ai\/local\/state\/completed\/t-\S+\.md: history, not instruction\./,
    );
    // The notes' folder replaced by a link (a stranger's doing): no note is named through it.
    const notes = repo.path(".ai/local/state/completed");
    const away = scratch("majordomus-notes-");
    cpSync(notes, away, { recursive: true });
    rmSync(notes, { recursive: true });
    symlinkSync(away, notes);
    const linked = new Session(repo, "fin-5b").start().stdout;
    expect(linked).toMatch(/Its task t-\S+ was finished \(completed\) after it was written\. It is context/);
    expect(linked).not.toContain("the note it was finished with");
    rmSync(notes);
    cpSync(away, notes, { recursive: true });
    rmSync(away, { recursive: true, force: true });
    // A task started afterwards is work of its own: the finished one's records tell it nothing to do.
    ok(repo.mj(["start", "the next thing", "--scope", "src"]));
    const next = new Session(repo, "fin-6").start().stdout;
    expect(next).not.toContain("Write the migration test next.");
    expect(next).toMatch(/Its task t-\S+ is over \(task t-\S+ is active now\)\. It is context, not an instruction/);
  });
});

describe("our own files are not the worker's changes", () => {
  test("closed records not yet committed are named as such, never as a dirty tree, and check does not count them", () => {
    using repo = captured();
    ok(repo.mj(["start", "tidy", "--scope", "src"]));
    for (const id of ["cc-1", "cc-2"]) {
      const s = new Session(repo, id);
      s.start();
      s.end();
    }
    expect(sessionFiles(repo).length).toBe(2);
    const briefing = new Session(repo, "cc-3").start().stdout;
    expect(briefing).toContain("working tree clean.");
    expect(briefing).toContain("2 closed session record(s) not committed");
    const check = JSON.parse(repo.mj(["check", "--json"]).stdout).items;
    expect(check.find((f: { category: string }) => f.category === "scope").message).toBe(
      "0 changed file(s), all inside src",
    );
    // The third session's closed record does not list the first two as its changes.
    new Session(repo, "cc-3").end();
    const third = sessionFiles(repo)
      .map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"))
      .find((t) => t.includes("provider_session: cc-3"))!;
    expect(third).toContain("changed_files: []");
    // Committed, they are no longer mentioned.
    repo.git("add", ".ai/repo/sessions");
    repo.git("commit", "-q", "-m", "session records");
    expect(new Session(repo, "cc-4").start().stdout).not.toContain("not committed");
  });
});

describe("identity survives a move, not a clone", () => {
  test("a moved repository still resolves its records; a clone with a copied local half does not", () => {
    using repo = captured();
    const one = new Session(repo, "cc-one");
    one.start();
    one.agent(["handover"], authored());
    one.end();
    const place = scratch("majordomus-moved-");
    const moved = join(place, "renamed-repo");
    try {
      renameSync(repo.dir, moved);
      const briefing = fire(new Repo(moved), "start", { ...START, session_id: "cc-after-move" }).stdout;
      expect(briefing).toContain(`in its author's own words, quoted:\n${asQuote(NEXT)}\n`);
      expect(briefing).toMatch(/\(authored, same_worktree_same_branch, exact, fresh/);

      const clone = join(place, "clone");
      sh(place, "git", ["clone", "-q", moved, clone]);
      cpSync(join(moved, ".ai/local"), join(clone, ".ai/local"), { recursive: true });
      const cloned = new Repo(clone);
      expect(cloned.mj(["handover", "--resolve"]).stdout).toContain("No handover for this worktree and branch");
      const json = JSON.parse(cloned.mj(["handover", "--resolve", "--json"]).stdout);
      expect(json.record).toBeNull();
      expect(json.candidates.every((c: { reason: string }) => c.reason.startsWith("another repository"))).toBe(true);
    } finally {
      renameSync(moved, repo.dir);
      rmSync(place, { recursive: true, force: true });
    }
  });

  test("a linked worktree moved with git worktree move keeps its own records (tier 0)", () => {
    using repo = captured();
    const place = scratch("majordomus-wt-");
    try {
      repo.git("worktree", "add", "-q", "-b", "feature", join(place, "wt"));
      const wt = new Repo(join(place, "wt"));
      ok(wt.mj(["handover"], { input: authored() }));
      repo.git("worktree", "move", join(place, "wt"), join(place, "wt-moved"));
      const moved = new Repo(join(place, "wt-moved"));
      const resolved = moved.mj(["handover", "--resolve"]);
      expect(resolved.stdout).toContain("Match: same_worktree_same_branch");
      expect(resolved.stdout).toContain(NEXT.split("\n")[0]!);
    } finally {
      rmSync(place, { recursive: true, force: true });
    }
  });

  test("records written before the repository had an identity keep resolving, in place and after a move", () => {
    using repo = captured();
    ok(repo.mj(["handover"], { input: authored() }));
    // As an older majordomus wrote it: the common dir's path as repository id, and no identity file.
    const dir = repo.path(".ai/local/state/handovers");
    const file = readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!;
    const common = repo.git("rev-parse", "--path-format=absolute", "--git-common-dir");
    const text = readFileSync(join(dir, file), "utf8").replace(
      /^repository_id: .*$/m,
      `repository_id: ${JSON.stringify(common)}`,
    );
    writeFileSync(join(dir, file), text);
    rmSync(repo.path(".git/majordomus-repository"));
    expect(repo.mj(["handover", "--resolve", "--path"]).stdout.trim()).toBe(
      repo.path(`.ai/local/state/handovers/${file}`),
    );
    // The first command that writes draws the identity, remembering the path it was drawn at.
    ok(repo.mj(["question", "add", "Which dialect?"]));
    expect(statSync(repo.path(".git/majordomus-repository")).isFile()).toBe(true);
    const place = scratch("majordomus-moved-");
    try {
      renameSync(repo.dir, join(place, "r"));
      expect(new Repo(join(place, "r")).mj(["handover", "--resolve", "--path"]).stdout.trim()).toBe(
        join(place, "r", `.ai/local/state/handovers/${file}`),
      );
    } finally {
      renameSync(join(place, "r"), repo.dir);
      rmSync(place, { recursive: true, force: true });
    }
  });
});

describe("the terminal is first-class", () => {
  test("with one open episode, session status, context and show take it and say so; the client's id works as an id", () => {
    using repo = captured();
    new Session(repo, "cc-1").start();
    const status = repo.mj(["session", "status"]);
    expect(status.stdout).toMatch(
      /^Episode s-\S+ \(the only open episode of this checkout; this process runs in no client session\)/,
    );
    const context = repo.mj(["session", "context"]);
    expect(context.status).toBe(0);
    expect(context.stdout).toContain("for claude-code session cc-1");
    expect(context.stderr).toContain("is the only open episode of this checkout; taking it");
    const byClientId = repo.mj(["session", "context", "cc-1"]);
    expect(byClientId.status).toBe(0);
    expect(byClientId.stdout).toBe(context.stdout);
    expect(repo.mj(["session", "show"]).stdout).toContain("is open (claude-code session cc-1)");
    // Closed, the client's id names its record.
    new Session(repo, "cc-1").end();
    const shown = repo.mj(["session", "show", "cc-1"]);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain("provider_session: cc-1");
    expect(repo.mj(["session", "context", "cc-1"]).stdout).toContain("is closed (closed at");
  });

  test("with two open episodes, they are listed and the commands ask for one", () => {
    using repo = captured();
    new Session(repo, "cc-1").start();
    new Session(repo, "cc-2").start();
    const status = repo.mj(["session", "status"]);
    expect(status.stdout).toContain("2 episodes are open in this checkout; this process belongs to none of them:");
    expect(status.stdout).toContain("Open: s-");
    expect(status.stdout).toContain("claude-code session cc-1");
    expect(status.stdout).toContain("claude-code session cc-2");
    const context = repo.mj(["session", "context"]);
    expect(context.status).toBe(12);
    expect(context.stderr).toContain("2 episodes are open in this checkout");
    expect(context.stderr).toContain("claude-code session cc-2");
    expect(repo.mj(["session", "context", "cc-2"]).stdout).toContain("for claude-code session cc-2");
    // Inside a client session the command is about that session's episode, whatever else is open.
    expect(repo.mj(["session", "status"], { env: { CLAUDE_CODE_SESSION_ID: "cc-2" } }).stdout).toMatch(
      /^Episode s-\S+, opened .*\(session cc-2\)/,
    );
  });

  test("episodes crashed clients left open by the dozen: the newest 20 are listed, the rest counted, every one in --json", () => {
    using repo = captured();
    for (let i = 0; i < 24; i++) new Session(repo, `cc-${String(i).padStart(2, "0")}`).start();
    const status = repo.mj(["session", "status"]);
    const open = status.stdout.split("\n").filter((l) => l.startsWith("Open: "));
    expect(open.length).toBe(20);
    expect(open[0]).toContain("claude-code session cc-23");
    expect(status.stdout).toContain("… and 4 older open episode(s)");
    expect(JSON.parse(ok(repo.mj(["session", "status", "--json"])).stdout).others.length).toBe(24);
    const context = repo.mj(["session", "context"]);
    expect(context.stderr.split("\n").filter((l) => /^ {2}s-/.test(l)).length).toBe(20);
    expect(context.stderr).toContain("… and 4 older open episode(s)");
  });
});

describe("doctor converges", () => {
  test("a hook failure is reported until a later event of its kind succeeds; then it is history, shown by --all", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    const good = readFileSync(policy, "utf8");
    writeFileSync(policy, `${good}\nnot: [valid\n`);
    new Session(repo, "cc-1").start();
    writeFileSync(policy, good);
    const failing = repo.mj(["doctor"]);
    expect(failing.status).toBe(10);
    expect(failing.stdout).toMatch(
      /FAIL lifecycle claude-code start — .*the policy could not be read.*no later claude-code start event has succeeded yet/,
    );
    // The next doctor reads only the lines appended since this one (its pass is kept in the cache).
    expect(existsSync(repo.path(".ai/local/cache/doctor-ledger.json"))).toBe(true);
    new Session(repo, "cc-2").start();
    const healthy = repo.mj(["doctor"]);
    expect(healthy.stderr).toBe("");
    expect(healthy.status).toBe(0);
    expect(healthy.stdout).toMatch(
      /INFO lifecycle recovered — \d earlier hook failure\(s\), each followed by a successful event of its kind/,
    );
    expect(healthy.stdout).toContain("INFO contexts");
    const all = repo.mj(["doctor", "--all"]);
    expect(all.stdout).toMatch(
      /INFO lifecycle claude-code start — .*the policy could not be read.*\(history: a later claude-code start event succeeded\)/,
    );
  });

  test("a month of failures and a damaged ledger: doctor shows the newest, counts the rest, and converges", () => {
    using repo = captured();
    new Session(repo, "cc-1").start();
    const ledgerFile = repo.path(".ai/local/state/ledger.jsonl");
    const line = (i: number, event: string, more: Record<string, unknown>) =>
      JSON.stringify({
        ts: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
        event,
        head: "abc1234",
        branch: "main",
        by: "majordomus/0.1.0",
        ...more,
      });
    const lines: string[] = [];
    for (let i = 0; i < 25; i++) {
      lines.push(
        line(2 * i, "provider.event.received", {
          provider: "claude-code",
          provider_event: "prompt",
          provider_session: "cc-1",
        }),
      );
      lines.push(
        line(2 * i + 1, "provider.event.failed", {
          provider: "claude-code",
          provider_event: "prompt",
          reason: `disk full (${i})`,
        }),
      );
      lines.push("{ torn");
    }
    appendFileSync(ledgerFile, `${lines.join("\n")}\n`);
    // The binary reads the ledger and the closed records on a second thread beside the local records (it carries that module).
    const failing = repo.mj(["doctor"], { env: { MAJORDOMUS_TRACE: "1" } });
    expect(failing.stderr).toContain("doctor: ledger and closed records read (beside the records)");
    expect(failing.stdout.split("\n").filter((l) => l.startsWith("FAIL lifecycle claude-code prompt")).length).toBe(10);
    expect(failing.stdout).toContain("FAIL lifecycle failures — 15 more unrecovered failure(s)");
    expect(failing.stdout.split("\n").filter((l) => /^FAIL ledger line \d+/.test(l)).length).toBe(20);
    expect(failing.stdout).toContain("FAIL ledger lines — 5 more line problem(s)");
    // A successful prompt: all 25 are history; --all shows the newest 20 and counts the other 5.
    expect(fire(repo, "prompt", { session_id: "cc-1", prompt: "say ok" }).status).toBe(0);
    const healthy = repo.mj(["doctor"]);
    expect(healthy.stdout).toContain("INFO lifecycle recovered — 25 earlier hook failure(s)");
    const all = repo.mj(["doctor", "--all"]).stdout.split("\n");
    expect(all.filter((l) => /^INFO lifecycle claude-code prompt — .*disk full/.test(l)).length).toBe(20);
    expect(all.some((l) => l.includes("disk full (24)"))).toBe(true);
    expect(all.some((l) => l.includes("disk full (4)"))).toBe(false);
    expect(all).toContain(
      "INFO lifecycle recovered — 5 older recovered failure(s) besides these  [reproduce: majordomus history --event provider.event.failed]",
    );
  });

  test("a fresh clone's local half, created on demand by a hook, has its declared modes", () => {
    using repo = captured();
    const place = scratch("majordomus-clone-");
    try {
      const clone = new Repo(join(place, "clone"));
      sh(place, "git", ["clone", "-q", repo.dir, clone.dir]);
      const run = sh(
        clone.dir,
        join(clone.dir, ".claude/hooks/majordomus-session-start"),
        [],
        JSON.stringify({ ...START, session_id: "cc-clone" }),
        hookEnv(),
      );
      expect(run.status).toBe(0);
      for (const dir of [".ai/local", ".ai/local/state"])
        expect((statSync(clone.path(dir)).mode & 0o777).toString(8)).toBe("700");
      const doctor = clone.mj(["doctor"]);
      expect(doctor.stdout).toMatch(/OK {3}privacy \.ai\/local — folders 0700, files 0600/);
    } finally {
      rmSync(place, { recursive: true, force: true });
    }
  });
});

void BIN;
