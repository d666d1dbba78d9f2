// The session lifecycle through the installed shims, fed the payloads Claude Code 2.1.332 really sends.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { captured, fire, fixture, hookEnv, openKeys, sessionFiles, settled, SHIMS } from "../support/capture.ts";
import { HANDOVER, ledger, ok, records } from "../support/layered.ts";

const START = fixture("SessionStart-startup.json");
const SESSION = String(START.session_id);
const END_OTHER = fixture("SessionEnd-other.json");
const END_EXIT = fixture("SessionEnd-prompt_input_exit.json");

describe("start", () => {
  test("opens one episode, freezes a working context, prints a briefing within budget; a resume keeps it", () => {
    using repo = captured();
    const run = fire(repo, "start", START);
    expect(run.status).toBe(0);
    expect(run.stdout).toStartWith("## majordomus — what this repository already knows");
    expect(run.stdout).toContain("(opened now)");
    expect(run.stdout).toContain("No active task.");
    expect(run.stdout).toContain("No relevant handover for this worktree and branch (main)");
    expect(run.stdout.trim().split("\n").at(-1)).toContain("majordomus context");
    expect(openKeys(repo)).toEqual([`${SESSION}.yaml`]);
    const contexts = readdirSync(repo.path(".ai/local/session-contexts")).filter(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    expect(contexts.length).toBe(1);
    const snapshot = readFileSync(repo.path(".ai/local/session-contexts", contexts[0]!), "utf8");
    expect(snapshot).toStartWith("---\nschema: session-context/v1\n");
    expect(snapshot).toContain("opened_by: hook\nprovider: claude-code\n");
    expect(snapshot).toContain("## Context at open\n\n# majordomus context");
    const resumed = fire(repo, "start", { ...START, source: "resume" });
    expect(resumed.stdout).toContain("(resumed)");
    expect(openKeys(repo).length).toBe(1);
    expect(ledger(repo).filter((e) => e.event === "session.started").length).toBe(1);
    expect(ledger(repo).filter((e) => e.event === "provider.event.received").length).toBe(2);
  });

  test("the briefing carries the last handover's Next Action with both labels, paragraphs kept", () => {
    using repo = captured();
    ok(
      repo.mj(["handover"], {
        input:
          "# Objective\nShip.\n\n# Current State\nHalf.\n\n# Next Action\nRun the parser tests.\n\nThen fix the tokenizer.\n",
      }),
    );
    repo.commit("more");
    const run = fire(repo, "start", START);
    expect(run.stdout).toMatch(
      /Handover \.ai\/local\/state\/handovers\/\S+ \(authored, same_worktree_same_branch, advanced, fresh, 0m old\)\./,
    );
    expect(run.stdout).toContain(
      "Its Next Action, in its author's own words, quoted:\n> Run the parser tests.\n>\n> Then fix the tokenizer.\n",
    );
  });

  test("a stale handover is history: age and reason shown, its Next Action withheld", () => {
    using repo = captured();
    ok(repo.mj(["handover"], { input: HANDOVER, env: { MAJORDOMUS_NOW: "2026-01-01T00:00:00Z" } }));
    const run = fire(repo, "start", START, { MAJORDOMUS_NOW: "2026-01-08T00:00:00Z" });
    expect(run.stdout).toContain("Historical handover");
    expect(run.stdout).toContain("stale");
    expect(run.stdout).not.toContain("Write the parser tests.");
    expect(run.stdout).not.toContain("Its Next Action");
  });

  test("over the line budget: the questions yield first (counted, with the command that lists them), and the briefing stays within it", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace("briefing_budget_lines: 60", "briefing_budget_lines: 11"),
    );
    for (let i = 0; i < 8; i++) ok(repo.mj(["question", "add", `Question number ${i}?`]));
    const lines = fire(repo, "start", START).stdout.replace(/\n$/, "").split("\n");
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(lines).toContain(
      "BLOCKED: 8 open question(s); each refuses `majordomus finish --outcome completed`; `majordomus question list` lists them.",
    );
    expect(lines.some((l) => l.includes("Question number"))).toBe(false);
    expect(lines.at(-1)).toBe(
      "(Shortened to fit 11 lines (session.briefing_budget_lines): open questions in short, each naming its command.)",
    );
    // What was handed is in the ledger: its size, its budget, what was cut.
    const briefed = ledger(repo).filter((e) => e.event === "session.briefed");
    expect(briefed.length).toBe(1);
    expect(briefed[0]).toMatchObject({
      provider: "claude-code",
      chars: lines.join("\n").length,
      budget: 9_500,
      counts: "utf16",
      cuts: ["open questions"],
    });
  });

  test("briefing_on_start: false restores silence, and the episode still opens", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(policy, readFileSync(policy, "utf8").replace("briefing_on_start: true", "briefing_on_start: false"));
    const run = fire(repo, "start", START);
    expect(run.stdout).toBe("");
    expect(openKeys(repo).length).toBe(1);
  });

  test("a broken handover record degrades the briefing; it never stops the episode from opening", () => {
    using repo = captured();
    ok(repo.mj(["handover"], { input: HANDOVER }));
    for (const f of records(repo, "handovers")) writeFileSync(repo.path(".ai/local/state/handovers", f), "garbage\n");
    const run = fire(repo, "start", START);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("No relevant handover");
    expect(openKeys(repo).length).toBe(1);
  });
});

describe("compact and end", () => {
  test("compact writes a derived checkpoint, keeps the episode open, prints nothing", () => {
    using repo = captured();
    fire(repo, "start", START);
    const run = fire(repo, "compact", { ...fixture("PreCompact-auto.json"), session_id: SESSION });
    expect(run.stdout).toBe("");
    expect(run.status).toBe(0);
    expect(records(repo, "checkpoints").length).toBe(1);
    expect(openKeys(repo).length).toBe(1);
    const line = ledger(repo).find((e) => e.event === "task.checkpoint")!;
    expect(line.session).toBeDefined();
    expect(line).toMatchObject({ task_id: "none", how: "derived" });
  });

  test("end with a deliberate reason closes as closed; a final checkpoint and a continuation record are written; no stdout", () => {
    using repo = captured();
    fire(repo, "start", START);
    const run = fire(repo, "end", { ...END_EXIT, session_id: SESSION });
    expect(run.stdout).toBe("");
    expect(openKeys(repo)).toEqual([]);
    const files = sessionFiles(repo);
    expect(files.length).toBe(1);
    const record = readFileSync(repo.path(".ai/repo/sessions", files[0]!), "utf8");
    expect(record).toContain("\noutcome: closed\n");
    expect(record).not.toMatch(/: "?\//);
    expect(record).toContain("# What Happened");
    expect(record).toContain("Continuation record: .ai/local/state/handovers/");
    expect(records(repo, "checkpoints").length).toBe(1);
    expect(records(repo, "handovers").length).toBe(1);
    const snapshot = readdirSync(repo.path(".ai/local/session-contexts")).find(
      (f) => f.endsWith(".md") && f !== "README.md",
    )!;
    expect(readFileSync(repo.path(".ai/local/session-contexts", snapshot), "utf8")).toContain(
      "\n## Close\n\n- closed_at: ",
    );
  });

  test("reason other (how every claude -p run ends) closes as closed, a reason the client does not name as interrupted; a second end adds nothing", () => {
    using repo = captured();
    fire(repo, "start", { ...START, session_id: "odd" });
    fire(repo, "end", { ...END_OTHER, session_id: "odd", reason: "bypass_permissions_disabled" });
    expect(readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8")).toContain(
      "\noutcome: interrupted\n",
    );
    rmSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!));
    fire(repo, "start", START);
    fire(repo, "end", END_OTHER);
    expect(readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8")).toContain(
      "\noutcome: closed\n",
    );
    const again = fire(repo, "end", END_OTHER, { MAJORDOMUS_LOG: "info" });
    expect(again.status).toBe(0);
    expect(again.stderr).toContain("nothing to close");
    expect(sessionFiles(repo).length).toBe(1);
    expect(records(repo, "handovers").length).toBe(2);
  });

  test("with an active task the continuation record attaches to it and leaves it active; the next start is briefed with both", () => {
    using repo = captured();
    ok(repo.mj(["start", "tidy the parser", "--scope", "src"]));
    fire(repo, "start", START);
    fire(repo, "end", END_OTHER);
    expect(readFileSync(repo.path(".ai/local/state/current.yaml"), "utf8")).toContain("outcome: active");
    const next = fire(repo, "start", { ...START, session_id: "another-session" });
    expect(next.stdout).toMatch(/Task t-\S+ \(active, profile implementation\): "tidy the parser"/);
    expect(next.stdout).toContain("Handover .ai/local/state/handovers/");
    expect(next.stdout).toContain(
      "Its Next Action, derived by majordomus from the records; no one wrote it, quoted:\n> Continue task t-",
    );
  });

  test("two client windows get two episodes; an end closes only its own", () => {
    using repo = captured();
    fire(repo, "start", START);
    fire(repo, "start", { ...START, session_id: "window-b" });
    expect(openKeys(repo).sort()).toEqual([`${SESSION}.yaml`, "window-b.yaml"]);
    fire(repo, "end", { ...END_OTHER, session_id: "window-b" });
    expect(openKeys(repo)).toEqual([`${SESSION}.yaml`]);
  });

  test("lines written inside a client session are stamped with its episode (CLAUDE_CODE_SESSION_ID)", () => {
    using repo = captured();
    fire(repo, "start", START);
    const id = ledger(repo).find((e) => e.event === "session.started")!.session_id;
    ok(repo.mj(["decision", "Keep it simple"], { env: { CLAUDE_CODE_SESSION_ID: SESSION } }));
    ok(repo.mj(["question", "add", "Outside any session?"], { env: { CLAUDE_CODE_SESSION_ID: "not-open" } }));
    const lines = ledger(repo);
    expect(lines.find((e) => e.event === "decision.recorded")!.session).toBe(id);
    expect(lines.find((e) => e.event === "question.opened")!.session).toBeUndefined();
    fire(repo, "end", END_OTHER);
    expect(readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8")).toContain(
      "decisions:\n  - Keep it simple\n",
    );
  });

  test("the record is committed only with the person's local consent to commit_record_on_end, alone, without hooks, leaving the index as it was", () => {
    using repo = captured();
    writeFileSync(repo.path(".git/hooks/pre-commit"), "#!/bin/sh\necho hook-ran > hook-ran\nexit 1\n", { mode: 0o755 });
    writeFileSync(repo.path("staged.txt"), "mine\n");
    repo.git("add", "staged.txt");
    writeFileSync(repo.path("unstaged.txt"), "mine too\n");
    const before = repo.git("rev-parse", "HEAD");
    fire(repo, "start", START);
    fire(repo, "end", END_OTHER);
    expect(repo.git("rev-parse", "HEAD")).toBe(before);

    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  commit_record_on_end: true\n", {
      mode: 0o600,
    });
    fire(repo, "start", { ...START, session_id: "second" });
    fire(repo, "end", { ...END_OTHER, session_id: "second" });
    const after = repo.git("rev-parse", "HEAD");
    expect(after).not.toBe(before);
    expect(repo.git("rev-parse", "HEAD~1")).toBe(before);
    const committed = repo.git("show", "--name-only", "--format=", "HEAD").split("\n");
    expect(committed.length).toBe(1);
    expect(committed[0]).toStartWith(".ai/repo/sessions/");
    expect(readFileSync(repo.path(committed[0]!), "utf8")).toContain("provider_session: second\n");
    expect(repo.git("diff", "--cached", "--name-only")).toBe("staged.txt");
    expect(repo.git("status", "--porcelain", "--", "unstaged.txt")).toBe("?? unstaged.txt");
    expect(statSync(repo.path(".git")).isDirectory() && readdirSync(repo.dir).includes("hook-ran")).toBe(false);
  });
});

describe("the consented commit and git's index lock", () => {
  test("with .git/index.lock held during a consented end: nothing is committed, nothing is staged for deletion, and the person's next ordinary commit keeps the record", () => {
    using repo = captured();
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  commit_record_on_end: true\n", {
      mode: 0o600,
    });
    const before = repo.git("rev-parse", "HEAD");
    fire(repo, "start", START);
    // Another git (an editor's) holds the index at that moment.
    writeFileSync(repo.path(".git/index.lock"), "");
    fire(repo, "end", END_OTHER);
    expect(repo.git("rev-parse", "HEAD")).toBe(before);
    rmSync(repo.path(".git/index.lock"));
    const record = `.ai/repo/sessions/${sessionFiles(repo)[0]!}`;
    const status = repo.git("status", "--porcelain", "--", ".ai/repo/sessions");
    expect(status).not.toMatch(/^D /m);
    expect(status).toBe(`?? ${record}`);
    // The person's own next commit, as they always make it.
    writeFileSync(repo.path("f.txt"), "work\n");
    repo.git("add", "f.txt");
    repo.git("commit", "-q", "-m", "my work");
    expect(readFileSync(repo.path(record), "utf8")).toContain("schema: session/v1");
    expect(repo.git("status", "--porcelain", "--", record)).toBe(`?? ${record}`);

    // Without the lock, the next consented end commits its record, and the index agrees with the branch.
    fire(repo, "start", { ...START, session_id: "second" });
    fire(repo, "end", { ...END_OTHER, session_id: "second" });
    expect(repo.git("log", "-1", "--format=%s")).toStartWith("chore(session): record ");
    expect(repo.git("status", "--porcelain", "--", ".ai/repo/sessions")).not.toMatch(/^D /m);
    repo.git("commit", "-q", "--allow-empty", "-m", "more of my work");
    const committed = repo.git("show", "--name-only", "--format=", "HEAD~1").trim();
    expect(repo.git("ls-files", "--", committed)).toBe(committed);
  });

  test("a lock on HEAD or on the branch held by another git: the warning names the lock (the branch did not move), the record is staged", () => {
    using repo = captured();
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  commit_record_on_end: true\n", {
      mode: 0o600,
    });
    for (const lock of [".git/HEAD.lock", ".git/refs/heads/main.lock"]) {
      const id = `locked-${lock.length}`;
      const before = repo.git("rev-parse", "HEAD");
      fire(repo, "start", { ...START, session_id: id });
      writeFileSync(repo.path(lock), "");
      const end = fire(repo, "end", { ...END_OTHER, session_id: id }, { MAJORDOMUS_LOG: "warn" });
      rmSync(repo.path(lock));
      expect(repo.git("rev-parse", "HEAD")).toBe(before);
      expect(end.stderr).toContain(`another git process holds a lock the commit needs (${lock})`);
      expect(end.stderr).not.toContain("the branch moved meanwhile");
    }
  });
});

describe("push", () => {
  test("a local consent to push_record_on_end pushes the record commit to the branch's remote; without it nothing is pushed", () => {
    using repo = captured();
    const remote = `${repo.dir}-remote.git`;
    repo.git("init", "-q", "--bare", remote);
    repo.git("remote", "add", "origin", remote);
    repo.git("push", "-q", "origin", "main");
    fire(repo, "start", START);
    const consent = repo.path(".ai/local/state/consent.yaml");
    writeFileSync(consent, "session:\n  commit_record_on_end: true\n", { mode: 0o600 });
    fire(repo, "end", END_OTHER);
    const local = repo.git("rev-parse", "HEAD");
    expect(repo.git("--git-dir", remote, "rev-parse", "main")).not.toBe(local);
    writeFileSync(consent, "session:\n  commit_record_on_end: true\n  push_record_on_end: true\n", { mode: 0o600 });
    fire(repo, "start", { ...START, session_id: "pushed" });
    fire(repo, "end", { ...END_OTHER, session_id: "pushed" });
    expect(repo.git("--git-dir", remote, "rev-parse", "main")).toBe(repo.git("rev-parse", "HEAD"));
    expect(repo.git("--git-dir", remote, "log", "-1", "--format=%s", "main")).toStartWith("chore(session): record ");
  });
});

describe("prompt", () => {
  test("archived byte-exact, linked to its episode, once per prompt id, private", () => {
    using repo = captured();
    fire(repo, "start", START);
    const text = 'He said "no"\n\ttabs, unicode ✓ and a trailing space ';
    const payload: Record<string, unknown> = {
      ...fixture("UserPromptSubmit-print.json"),
      session_id: SESSION,
      prompt: text,
    };
    expect(fire(repo, "prompt", payload).stdout).toBe("");
    fire(repo, "prompt", payload);
    const dir = repo.path(".ai/local/prompts");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBe(1);
    const record = JSON.parse(readFileSync(`${dir}/${files[0]}`, "utf8"));
    expect(record.text).toBe(text);
    expect(record).toMatchObject({
      schema: "prompt/v1",
      provider: "claude-code",
      prompt_id: payload.prompt_id,
      episode_link: "open",
    });
    expect(record.episode).toMatch(/^s-/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(`${dir}/${files[0]}`).mode & 0o777).toBe(0o600);
  });

  test("linked by the same session key the session events use, numeric ids included, beside another open window", () => {
    using repo = captured();
    fire(repo, "start", { ...START, session_id: 101 });
    fire(repo, "start", { ...START, session_id: 202 });
    const status = JSON.parse(ok(repo.mj(["session", "status", "--json"])).stdout);
    const second = [status.current, ...status.others].find((e) => e?.provider_session === "202");
    fire(repo, "prompt", {
      ...fixture("UserPromptSubmit-print.json"),
      session_id: 202,
      prompt: "for the second window",
    });
    const dir = repo.path(".ai/local/prompts");
    const record = JSON.parse(readFileSync(`${dir}/${readdirSync(dir).find((f) => f.endsWith(".json"))}`, "utf8"));
    expect(second.session_id).toMatch(/^s-/);
    expect(record).toMatchObject({ episode: second.session_id, episode_link: "open" });
  });

  test.each([
    ["an Anthropic key", "use sk-ant-api03-abcdefghijklmnopqrstuvwx please", "anthropic-key"],
    ["a GitHub token", "token ghp_abcdefghijklmnopqrstuvwxyz0123", "github-token"],
    ["an AWS key id", "AKIAABCDEFGHIJKLMNOP is the id", "aws-access-key-id"],
    ["a bearer token", "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456'", "authorization"],
    ["a password assignment", "connect with password=hunter2hunter2", "assignment"],
    ["a private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----", "private-key"],
  ])("%s is redacted before anything is written", (_, text, name) => {
    using repo = captured();
    fire(repo, "prompt", { ...fixture("UserPromptSubmit-print.json"), prompt: text });
    const dir = repo.path(".ai/local/prompts");
    const raw = readFileSync(`${dir}/${readdirSync(dir).find((f) => f.endsWith(".json"))}`, "utf8");
    expect(raw).toContain(`[redacted:${name}]`);
    expect(JSON.parse(raw).redacted).toEqual([name]);
    for (const secret of ["abcdefghijklmnopqrstuvwx", "hunter2hunter2", "MIIEabc", "ABCDEFGHIJKLMNOP"])
      expect(raw).not.toContain(secret);
  });

  test("messages the client injects are not a person's prompt", () => {
    using repo = captured();
    fire(repo, "prompt", {
      ...fixture("UserPromptSubmit-print.json"),
      prompt: "<task-notification>done</task-notification>",
    });
    fire(repo, "prompt", {
      ...fixture("UserPromptSubmit-print.json"),
      prompt_id: "p2",
      prompt: "hello",
      source: "loop_wakeup",
    });
    expect(readdirSync(repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"))).toEqual([]);
  });

  test("capture prune keeps metadata and the digest, drops old texts", () => {
    using repo = captured();
    fire(
      repo,
      "prompt",
      { ...fixture("UserPromptSubmit-print.json"), prompt: "old words" },
      { MAJORDOMUS_NOW: "2026-01-01T00:00:00Z" },
    );
    fire(
      repo,
      "prompt",
      { ...fixture("UserPromptSubmit-print.json"), prompt_id: "new", prompt: "new words" },
      { MAJORDOMUS_NOW: "2026-03-01T00:00:00Z" },
    );
    const run = ok(repo.mj(["capture", "prune", "--json"], { env: { MAJORDOMUS_NOW: "2026-03-01T00:00:00Z" } }));
    expect(JSON.parse(run.stdout)).toMatchObject({ records: 2, pruned: 1 });
    const dir = repo.path(".ai/local/prompts");
    const all = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8")));
    const old = all.find((r) => r.text === null)!;
    expect(old.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(old.pruned_bytes).toBe(9);
    expect(all.find((r) => r.text === "new words")).toBeDefined();
  });
});

describe("an unsupervised repository", () => {
  test("with the shims but no layer, every hook succeeds quietly and writes nothing", () => {
    using repo = captured();
    rmSync(repo.path(".ai"), { recursive: true });
    for (const shim of ["start", "prompt", "compact", "end"] as const) {
      const run = fire(repo, shim, { session_id: SESSION, prompt: "hi", reason: "other" });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("no .ai layer");
    }
    expect(existsSync(repo.path(".ai"))).toBe(false);
  });
});

describe("recover and doctor", () => {
  test("a stranded episode is closed as interrupted after session.stranded_after; the start event recovers it too", () => {
    using repo = captured();
    fire(repo, "start", START, { MAJORDOMUS_NOW: "2026-01-01T00:00:00Z" });
    const check = repo.mj(["recover", "--check"], { env: { MAJORDOMUS_NOW: "2026-01-01T12:00:00Z" } });
    expect(check.status).toBe(0);
    const later = { MAJORDOMUS_NOW: "2026-01-03T00:00:00Z" };
    expect(repo.mj(["recover", "--check"], { env: later }).status).toBe(10);
    fire(repo, "start", { ...START, session_id: "fresh-one" }, later);
    expect(openKeys(repo)).toEqual(["fresh-one.yaml"]);
    expect(readFileSync(repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!), "utf8")).toContain(
      "\noutcome: interrupted\n",
    );
    expect(ledger(repo).some((e) => e.event === "session.recovered")).toBe(true);
  });

  test("with stranded episodes open and some just recovered, a start reads a few open episodes, never the whole folder (strace)", () => {
    const strace = spawnSync("sh", ["-c", "command -v strace"], { encoding: "utf8" }).stdout.trim();
    if (!strace) throw new Error("strace is needed (CI installs it)");
    using repo = captured();
    const then = { MAJORDOMUS_NOW: "2026-01-01T00:00:00Z" };
    for (let i = 0; i < 20; i++) fire(repo, "start", { ...START, session_id: `left-${i}` }, then);
    // Two days later a new session starts: its worker recovers a few stranded episodes, and their closes are in the ledger now.
    const later = { MAJORDOMUS_NOW: "2026-01-03T00:00:00Z" };
    fire(repo, "start", { ...START, session_id: "fresh-one" }, later);
    const left = openKeys(repo).length;
    expect(left).toBeLessThan(21);
    expect(left).toBeGreaterThan(12);
    // The next start, resumed: the episodes closed a moment ago are not live, so nothing lists the open folder.
    const trace = repo.path("start.trace");
    const run = spawnSync(strace, ["-f", "-e", "trace=execve,openat", "-o", trace, repo.path(SHIMS.start)], {
      cwd: repo.dir,
      input: JSON.stringify({ ...START, session_id: "fresh-one", source: "resume" }),
      env: { ...process.env, ...hookEnv(later) },
    });
    expect(run.status).toBe(0);
    settled(repo);
    const lines = readFileSync(trace, "utf8").split("\n");
    rmSync(trace);
    const hook = lines.find((l) => l.includes("execve(") && l.includes('capture", "session'))!.split(/\s+/)[0];
    const opened = new Set(
      lines
        .filter((l) => l.startsWith(`${hook} `))
        .flatMap((l) => /openat\(.*sessions-open\/([^"/]+)\.yaml"/.exec(l)?.[1] ?? []),
    );
    // Its own, and the one a look for a stranded episode stops at.
    expect(opened.has("fresh-one")).toBe(true);
    expect(opened.size).toBeLessThanOrEqual(2);
  });

  test("doctor is green on a healthy layer and fails (10) on a conversation key, a failure log, or broken declared wiring", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace(
        "enforcement: []",
        'enforcement:\n  - { name: session-lifecycle, wired_by: "provider-hook:claude-code:session" }',
      ),
    );
    fire(repo, "start", START);
    fire(repo, "end", END_OTHER);
    const healthy = repo.mj(["doctor"], { env: hookEnv() });
    expect(healthy.stdout).toContain("OK   wiring session-lifecycle — provider-hook:claude-code:session: verified");
    expect(healthy.status).toBe(0);
    const record = repo.path(".ai/repo/sessions", sessionFiles(repo)[0]!);
    writeFileSync(
      record,
      readFileSync(record, "utf8").replace("outcome: closed", "outcome: closed\ntranscript: hello"),
    );
    const bad = repo.mj(["doctor"]);
    expect(bad.status).toBe(10);
    expect(bad.stdout).toContain("carries conversation key(s): transcript");
  });

  test("doctor reports a non-empty failure log and the work an event could not do", () => {
    using repo = captured();
    fire(repo, "start", START);
    // A policy that does not parse: the end event still closes, but its derived records fail.
    const policy = repo.path(".ai/repo/policy.yaml");
    const original = readFileSync(policy, "utf8");
    writeFileSync(
      policy,
      `${original}
session: [broken
`,
    );
    fire(repo, "end", END_OTHER);
    writeFileSync(policy, original);
    const run = repo.mj(["doctor"]);
    expect(run.status).toBe(10);
    expect(run.stdout).toContain("FAIL lifecycle claude-code end");
    expect(run.stdout).toMatch(
      /FAIL contexts \.ai\/local\/session-contexts\/\.session-context\.log — \d+ logged failure/,
    );
  });
});
