// What a new adopter meets first: errors of the right kind with a message they can act on, numbers
// that mean the same in every command, records that say who opened them, and plain text on a terminal.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { captured, fire, hookEnv, openKeys } from "../support/capture.ts";
import { Repo, scratch } from "../support/repo.ts";
import { layered, ledger, ok, closedRecords } from "../support/layered.ts";

describe("errors a person can act on", () => {
  test("a duration that is not one is a usage error (2), never 'this is a bug'", () => {
    using repo = layered();
    const run = repo.mj(["recover", "--older-than", "5y"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--older-than "5y" is not a duration');
    expect(run.stderr).not.toContain("bug");
  });

  test("a YAML syntax error ends with its place and shows the line, not a dangling colon", () => {
    using repo = layered();
    writeFileSync(repo.path(".ai/repo/policy.yaml"), "schema: policy/v1\nsession:\n  stranded_after: [1\n");
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(10);
    const first = run.stderr.split("\n")[0]!;
    expect(first).toMatch(/at line \d+, column \d+$/);
    expect(run.stderr).toContain("stranded_after: [1");
  });

  test("an empty policy says it is empty and how to get the default back", () => {
    using repo = layered();
    writeFileSync(repo.path(".ai/repo/policy.yaml"), "\n");
    const run = repo.mj(["policy"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("policy.yaml is empty");
    expect(run.stderr).toContain("majordomus init --extend");
    expect(run.stderr).not.toContain("null null");
  });

  test("'allows no other keys' is said for an unknown key, not for a wrong type", () => {
    using repo = layered();
    const policy = repo.path(".ai/repo/policy.yaml");
    const original = readFileSync(policy, "utf8");
    writeFileSync(policy, original.replace("briefing_budget_lines: 60", "briefing_budget_lines: many"));
    const typed = repo.mj(["policy"]);
    expect(typed.stderr).toContain('session.briefing_budget_lines: must be integer (found string "many")');
    expect(typed.stderr).not.toContain("allows no other keys");
    writeFileSync(
      policy,
      original.replace("briefing_budget_lines: 60", "briefing_budget_lines: 60\n  briefing_colour: red"),
    );
    const unknown = repo.mj(["policy"]);
    expect(unknown.stderr).toContain("session.briefing_colour: is not a known key");
    expect(unknown.stderr).toContain("allows no other keys");
  });

  test("no message says majordomus twice", () => {
    using repo = layered();
    for (const args of [
      ["recover", "--older-than", "5y"],
      ["inti"],
      ["session", "show", "nope"],
      ["finish", "--outcome", "completed"],
    ]) {
      expect(repo.mj(args).stderr).not.toContain("majordomus: majordomus");
    }
  });
});

describe("one meaning per number and per word", () => {
  test("check names an open question by the number `question resolve` takes", () => {
    using repo = layered();
    ok(repo.mj(["question", "add", "first?"]));
    ok(repo.mj(["question", "add", "second?"]));
    ok(repo.mj(["question", "resolve", "1", "--answer", "yes"]));
    const blocker = JSON.parse(repo.mj(["check", "--json"]).stdout).items.find(
      (f: { category: string; level: string }) => f.category === "blockers" && f.level === "FAIL",
    );
    expect(blocker.subject).toBe("question 1");
    expect(blocker.message).toContain("second?");
    const number = blocker.subject.split(" ")[1];
    ok(repo.mj(["question", "resolve", number, "--answer", "no"]));
    expect(JSON.parse(repo.mj(["question", "list", "--json"]).stdout).items).toEqual([]);
  });

  test("an episode a person opens names a client session yet is opened by hand", () => {
    using repo = layered();
    const run = JSON.parse(
      ok(repo.mj(["session", "start", "--provider", "claude-code", "--provider-session", "cc-typed", "--json"])).stdout,
    );
    expect(run.episode.opened_by).toBe("hand");
    const open = readFileSync(repo.path(".ai/local/state/sessions-open/cc-typed.yaml"), "utf8");
    expect(open).toContain("opened_by: hand");
  });
});

describe("a start payload that is not JSON", () => {
  test("opens no episode, still briefs the agent, and records why; an end without an id closes nothing", () => {
    using repo = captured();
    const run = fire(repo, "start", "this is not json");
    expect(run.status).toBe(0);
    expect(run.stdout).toStartWith("## majordomus");
    expect(openKeys(repo)).toEqual([]);
    const failure = ledger(repo).find((e) => e.event === "provider.event.failed");
    expect(failure).toMatchObject({ provider_event: "start" });
    expect(String(failure!.reason)).toContain("no episode was opened");
    // A second unreadable start does not find a shared episode to resume.
    expect(fire(repo, "start", "{not json either").stdout).not.toContain("(resumed)");
    expect(openKeys(repo)).toEqual([]);
    expect(fire(repo, "end", "garbage").status).toBe(0);
    expect(closedRecords(repo)).toEqual([]);
  });
});

describe("a prompt payload of any size", () => {
  // The hook reads its stdin into one buffer that grows across reads, up to the 1 MiB bound.
  const prompts = (repo: Repo) => readdirSync(repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));

  test("a payload larger than one read (300 KiB) is archived whole; one past 1 MiB is refused, said so, and archived nowhere", () => {
    using repo = captured();
    fire(repo, "start", { session_id: "cc-sizes", source: "startup" });
    const text = `${"0123456789abcdef".repeat(300 * 64)}end`;
    expect(fire(repo, "prompt", { session_id: "cc-sizes", prompt_id: "p-big", prompt: text }).status).toBe(0);
    const [kept] = prompts(repo);
    expect(JSON.parse(readFileSync(repo.path(".ai/local/prompts", kept!), "utf8")).text).toBe(text);

    const huge = fire(repo, "prompt", {
      session_id: "cc-sizes",
      prompt_id: "p-huge",
      prompt: "x".repeat(1024 * 1024 + 10),
    });
    expect(huge.status).toBe(0);
    expect(huge.stdout).toBe("");
    expect(prompts(repo)).toEqual([kept]);
    const refused = ledger(repo).filter((e) => e.event === "provider.event.failed" && e.provider_event === "prompt");
    expect(refused.map((e) => String(e.reason))).toEqual([
      expect.stringContaining("the payload is over 1048576 bytes"),
    ]);
  });
});

describe("file names YAML treats as syntax", () => {
  test("a compaction with @types/… and - among the changed files writes a checkpoint every reader can read", () => {
    using repo = captured();
    fire(repo, "start", { session_id: "cc-names", source: "startup" });
    for (const name of ["@types/global.d.ts", "-", ".inf", "yes"]) {
      mkdirSync(dirname(repo.path(name)), { recursive: true });
      writeFileSync(repo.path(name), "x\n");
    }
    expect(fire(repo, "compact", { session_id: "cc-names", trigger: "auto" }).status).toBe(0);
    const listed = JSON.parse(ok(repo.mj(["checkpoint", "--list", "--json"])).stdout).items as Array<{
      changed_files?: string[];
      verdict?: string;
    }>;
    expect(listed.length).toBe(1);
    const doctor = JSON.parse(repo.mj(["doctor", "--json"]).stdout) as {
      items: Array<{ level: string; category: string; message: string }>;
    };
    expect(doctor.items.filter((f) => f.category === "records" && f.level === "FAIL")).toEqual([]);
    const file = readdirSync(repo.path(".ai/local/state/checkpoints")).find(
      (f) => f.endsWith(".md") && f !== "README.md",
    )!;
    const text = readFileSync(repo.path(".ai/local/state/checkpoints", file), "utf8");
    for (const name of ["@types/global.d.ts", "-", ".inf", "yes"]) expect(text).toContain(`- ${JSON.stringify(name)}`);
  });
});

describe("a working tree with thousands of untracked files", () => {
  test("a node_modules/ nobody ignored is written as folders in each record, not as 2,000 paths (the closed record is committed)", () => {
    using repo = captured();
    for (let d = 0; d < 20; d++) {
      mkdirSync(repo.path(`node_modules/pkg${d}`), { recursive: true });
      for (let i = 0; i < 100; i++) writeFileSync(repo.path(`node_modules/pkg${d}/f${i}.js`), "x\n");
    }
    writeFileSync(repo.path("work.ts"), "export const w = 1;\n");
    fire(repo, "start", { session_id: "cc-many", source: "startup" });
    fire(repo, "compact", { session_id: "cc-many", trigger: "auto" });
    expect(fire(repo, "end", { session_id: "cc-many", reason: "other" }).status).toBe(0);
    const frontOf = (path: string) =>
      Bun.YAML.parse(readFileSync(path, "utf8").split("---\n")[1]!) as { changed_files: string[] };
    const folders = [".ai/local/state/checkpoints", ".ai/local/state/handovers", ".ai/repo/sessions"];
    for (const folder of folders) {
      for (const file of readdirSync(repo.path(folder)).filter((f) => f.endsWith(".md") && f !== "README.md")) {
        const files = frontOf(repo.path(folder, file)).changed_files;
        expect({ file, count: files.length <= 200 }).toEqual({ file, count: true });
        expect(files).toContain("work.ts");
        expect(files.some((f) => f.startsWith("node_modules/") && f.endsWith("/"))).toBe(true);
      }
    }
    const closed = closedRecords(repo)[0]!;
    const text = readFileSync(repo.path(".ai/repo/sessions", closed), "utf8");
    expect(text.length).toBeLessThan(20_000);
    // The record's own account still gives the real count.
    expect(text).toMatch(/20\d\d file\(s\) changed/);
  });
});

describe("no git on the PATH a client gives its hooks", () => {
  test("every hook exits 0 and the briefing says why the working tree is unknown; where nothing may be written it says why; never 'a bug'", () => {
    using repo = captured();
    // A folder with only sh and this binary: what a client launched with a bare PATH may give.
    const bin = scratch("majordomus-nogit-");
    symlinkSync("/bin/sh", join(bin, "sh"));
    symlinkSync(BIN, join(bin, "majordomus"));
    const env = { PATH: bin };
    for (const shim of ["start", "prompt", "compact", "end"] as const) {
      const run = fire(
        repo,
        shim,
        { session_id: "cc-nogit", source: "startup", prompt: "hi", reason: "other", trigger: "auto" },
        env,
      );
      expect({ shim, status: run.status }).toEqual({ shim, status: 0 });
      expect(run.stderr).not.toContain("bug");
      // The briefing goes on, saying what it could not learn and why.
      if (shim === "start")
        expect(run.stdout).toContain("working tree unknown (git could not be started: it is not on the PATH");
    }
    // The episode closed into its record all the same.
    expect(closedRecords(repo).length).toBe(1);
    const context = repo.mj(["context"], { env: { PATH: bin } });
    expect(context.status).toBe(0);
    expect(context.stdout).toContain("working tree: unknown");
    // Where the answer that git ignores the local half is not remembered yet, nothing is written, and it says why.
    const elsewhere = { PATH: bin, XDG_CONFIG_HOME: join(bin, "config") };
    const write = repo.mj(["handover", "--no-task"], {
      input: "# Objective\nX.\n\n# Current State\nY.\n\n# Next Action\nZ.\n",
      env: elsewhere,
    });
    expect(write.status).toBe(15);
    expect(write.stderr).toContain("git could not be started: it is not on the PATH");
    const hook = fire(repo, "prompt", { session_id: "cc-nogit-2", prompt: "hi" }, elsewhere);
    expect(hook.status).toBe(0);
    expect(hook.stderr).toContain("git could not be started: it is not on the PATH");
    for (const run of [context, write, hook]) expect(run.stderr).not.toContain("bug");
    rmSync(bin, { recursive: true, force: true });
  });
});

describe("plain text on a terminal", () => {
  test("stderr carries no colour codes, on a terminal or with TERM=dumb", () => {
    using repo = layered();
    // `script` gives the binary a terminal for its stdout and stderr.
    const has = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).status === 0;
    if (!has) return;
    for (const term of ["xterm-256color", "dumb"]) {
      const run = spawnSync("script", ["-qc", `${BIN} inti; ${BIN} recover --older-than 5y`, "/dev/null"], {
        cwd: repo.dir,
        encoding: "utf8",
        env: { ...process.env, TERM: term },
      });
      expect(run.stdout).toContain("did you mean");
      expect(run.stdout).not.toContain("\u001b[");
    }
  });
});

describe("doctor as a first look", () => {
  test("in a repository without a layer it is a report that says so (exit 10), as text and as JSON", () => {
    using repo = Repo.init();
    const run = repo.mj(["doctor"]);
    expect(run.status).toBe(10);
    expect(run.stdout).toContain("FAIL layer .ai — no .ai layer in");
    expect(run.stdout).toContain("[reproduce: majordomus init]");
    const json = JSON.parse(repo.mj(["doctor", "--json"]).stdout);
    expect(json).toMatchObject({
      schema: "majordomus/findings/v1",
      failing: 1,
      items: [{ level: "FAIL", category: "layer" }],
    });
  });

  test("with Claude Code wired, doctor proves the wiring by default: verified, and a drifted shim fails", () => {
    using repo = captured();
    const good = repo.mj(["doctor"], { env: hookEnv() });
    expect(good.stdout).toMatch(/^OK +wiring claude-code:prompt — verified/m);
    expect(good.stdout).toMatch(/^OK +wiring claude-code:session — verified/m);
    const shim = repo.path(".claude/hooks/majordomus-session-end");
    writeFileSync(shim, `${readFileSync(shim, "utf8")}# edited\n`);
    const drifted = repo.mj(["doctor"], { env: hookEnv() });
    expect(drifted.status).toBe(10);
    expect(drifted.stdout).toMatch(/^FAIL wiring claude-code:session — named — .*drift/m);
  });

  test("a manifest without the cache section: doctor reports it and every other finding, and keeps nothing between runs", () => {
    using repo = layered();
    const manifest = repo.path(".ai/manifest.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(/^ {2}cache: .*\n/m, ""));
    for (let run = 0; run < 2; run++) {
      const doctor = repo.mj(["doctor"]);
      expect(doctor.stderr).toBe("");
      expect(doctor.stdout).toMatch(/^WARN layer sections\.cache — not declared in the manifest/m);
      expect(doctor.stdout).toMatch(/^OK +records handovers/m);
      expect(doctor.stdout).toMatch(/^OK +sessions repo\/sessions/m);
    }
    for (const kept of ["doctor-ledger.json", "doctor-verdicts.tsv"])
      expect(existsSync(repo.path(".ai/local/cache", kept))).toBe(false);
  });

  test("where nothing is wired, doctor says nothing of any client", () => {
    using repo = layered();
    expect(repo.mj(["doctor"]).stdout).not.toContain("wiring");
  });
});
