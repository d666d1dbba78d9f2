// A repository from a stranger gets nothing: majordomus never writes through a symbolic link in
// its layer, and a hook in such a repository says so and records nothing.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { BIN } from "../support/env.ts";
import { join } from "node:path";
import { captured, fire, fixture } from "../support/capture.ts";
import { layered, ok, closedRecords, records, HANDOVER } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");
const END = fixture("SessionEnd-other.json");

/** A folder outside the repository, as an attacker would point a link at (the person's home, say). */
function outside(): { dir: string; [Symbol.dispose](): void } {
  const dir = scratch("majordomus-outside-");
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file below `dir`. */
function all(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Replace a folder of the layer with a link to `target` (as a tracked symlink arrives in a clone). */
function linkFolder(repo: Repo, rel: string, target: string): void {
  rmSync(repo.path(rel), { recursive: true, force: true });
  symlinkSync(target, repo.path(rel));
}

function story(repo: Repo) {
  return [
    fire(repo, "start", START),
    fire(repo, "prompt", { session_id: START.session_id, prompt_id: "p1", prompt: "hello" }),
    fire(repo, "compact", { session_id: START.session_id, trigger: "auto" }),
    fire(repo, "end", END),
  ];
}

describe("symbolic links in the layer", () => {
  test(".ai/repo/sessions linked outside: the hooks write nothing there, exit 0, and say why", () => {
    using repo = captured();
    using away = outside();
    linkFolder(repo, ".ai/repo/sessions", away.dir);
    const runs = story(repo);
    for (const run of runs) expect(run.status).toBe(0);
    expect(all(away.dir)).toEqual([]);
    expect(runs[0]!.stderr).toContain(
      ".ai/repo/sessions is a symbolic link; majordomus never reads or writes through one inside its layer",
    );
    expect(runs[0]!.stdout).toBe("");
    // A person's command says so too, and writes nothing.
    const handover = repo.mj(["handover", "--derive", "--no-task"]);
    expect(handover.status).toBe(15);
    expect(all(away.dir)).toEqual([]);
  });

  test(".ai/local linked outside: nothing is written outside the repository", () => {
    using repo = captured();
    using away = outside();
    linkFolder(repo, ".ai/local", away.dir);
    for (const run of story(repo)) expect(run.status).toBe(0);
    expect(all(away.dir)).toEqual([]);
    expect(repo.mj(["init", "--extend"]).status).toBe(15);
    expect(all(away.dir)).toEqual([]);
  });

  test("doctor's caches linked to a FIFO outside: doctor neither waits on it nor reads through it, and the FIFO is untouched", async () => {
    using repo = layered();
    using away = outside();
    const fifo = join(away.dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    for (const name of ["doctor-ledger.json", "doctor-verdicts.tsv"])
      symlinkSync(fifo, repo.path(".ai/local/cache", name));
    const doctor = Bun.spawn([BIN, "doctor"], { cwd: repo.dir, stdout: "pipe", stderr: "pipe" });
    // Read through, the open would wait for a writer that never comes.
    const timer = setTimeout(() => doctor.kill("SIGKILL"), 4_000);
    await doctor.exited;
    clearTimeout(timer);
    expect(doctor.signalCode).toBeNull();
    expect(await new Response(doctor.stdout).text()).toContain("records handovers");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(all(away.dir)).toEqual([]);
  });

  test("closed records a stranger's repository tracks as links (to /dev/zero, to a private file): named by every reader, never read, and no reader hangs", async () => {
    using repo = captured();
    using away = outside();
    const secret = join(away.dir, "notes.md");
    writeFileSync(secret, "---\nschema: session/v1\nsession_id: s-secret\n---\nTHE-PERSON'S-OWN-WORDS\n");
    symlinkSync("/dev/zero", repo.path(".ai/repo/sessions/20260601T000000000Z--s-zero.md"));
    symlinkSync(secret, repo.path(".ai/repo/sessions/20260601T000001000Z--s-secret.md"));
    repo.git("add", ".ai/repo/sessions");
    repo.git("commit", "-q", "-m", "Records from a stranger");
    const run = async (args: string[]) => {
      const proc = Bun.spawn([BIN, ...args], { cwd: repo.dir, stdout: "pipe", stderr: "pipe" });
      // Read through, /dev/zero never ends.
      const timer = setTimeout(() => proc.kill("SIGKILL"), 4_000);
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      await proc.exited;
      clearTimeout(timer);
      return { signal: proc.signalCode, status: proc.exitCode, text: stdout + stderr };
    };
    for (const args of [["session", "list", "--all"], ["doctor"], ["session", "latest"]]) {
      const r = await run(args);
      expect({ args, signal: r.signal }).toEqual({ args, signal: null });
      expect(r.text).not.toContain("THE-PERSON'S-OWN-WORDS");
      if (args[1] !== "latest")
        expect(r.text).toMatch(
          /s-zero\.md(:| —) unreadable: it is a symbolic link; majordomus never reads or writes through one inside its layer/,
        );
    }
    // The hooks go on: the session is briefed, and its end still closes into a record of its own.
    const runs = story(repo);
    for (const r of runs) expect(r.status).toBe(0);
    expect(runs[0]!.stdout).toContain("## majordomus");
    expect(closedRecords(repo).length).toBeGreaterThanOrEqual(1);
  });

  test("records a stranger's repository tracks at 8 MB: named as too large by every reader, never read into memory, and the hooks go on", () => {
    using repo = captured();
    const huge = `---\nschema: session/v1\nsession_id: s-huge\n---\n${"x".repeat(8 * 1024 * 1024)}\n`;
    writeFileSync(repo.path(".ai/repo/sessions/20260601T000000000Z--s-huge.md"), huge);
    writeFileSync(
      repo.path(".ai/local/state/handovers/20260601T000000000Z--000099--main--abc1234.md"),
      huge.replace("session/v1", "handover/v1"),
    );
    repo.git("add", ".ai/repo/sessions");
    repo.git("commit", "-q", "-m", "A record from a stranger");
    const said = /s-huge\.md(:| —) unreadable: it is 83886\d\d bytes, more than the 1048576 a file of its kind holds/;
    expect(repo.mj(["session", "list", "--all"]).stderr).toMatch(said);
    const doctor = repo.mj(["doctor"]);
    expect(doctor.stdout).toMatch(said);
    expect(doctor.stdout).toMatch(/000099--main--abc1234\.md — unreadable: it is 83886\d\d bytes/);
    const runs = story(repo);
    for (const r of runs) expect(r.status).toBe(0);
    expect(runs[0]!.stdout).toContain("## majordomus");
  });

  test("a ledger linked to a shell rc file, on a branch named like a command: the file is untouched", () => {
    using repo = captured();
    using away = outside();
    const rc = join(away.dir, ".bashrc");
    writeFileSync(rc, "# the person's own rc file\n");
    fire(repo, "start", START);
    rmSync(repo.path(".ai/local/state/ledger.jsonl"));
    symlinkSync(rc, repo.path(".ai/local/state/ledger.jsonl"));
    repo.git("switch", "-q", "-c", "x$(id)");
    for (const run of story(repo)) expect(run.status).toBe(0);
    expect(readFileSync(rc, "utf8")).toBe("# the person's own rc file\n");
    expect(repo.mj(["history"]).status).toBe(15);
  });

  test("a state file linked outside (the task record): refused, nothing read or written through it", () => {
    using repo = captured();
    using away = outside();
    const target = join(away.dir, "current.yaml");
    writeFileSync(target, "secret: the person's file\n");
    mkdirSync(repo.path(".ai/local/state"), { recursive: true });
    symlinkSync(target, repo.path(".ai/local/state/current.yaml"));
    const run = repo.mj(["start", "a task", "--scope", "src"]);
    expect(run.status).toBe(15);
    expect(run.stderr).toContain(".ai/local/state/current.yaml is a symbolic link");
    expect(readFileSync(target, "utf8")).toBe("secret: the person's file\n");
  });

  test("a prompt record that is a link to a file outside: doctor names the link, and prints nothing of what it points at", () => {
    using repo = captured();
    using away = outside();
    const target = join(away.dir, "notes.json");
    writeFileSync(target, '{"schema":"prompt/v1","text":"the person\'s private notes"}\n');
    fire(repo, "start", START);
    mkdirSync(repo.path(".ai/local/prompts"), { recursive: true, mode: 0o700 });
    symlinkSync(target, repo.path(".ai/local/prompts/linked.json"));
    const run = repo.mj(["doctor"]);
    expect(run.status).toBe(10);
    expect(run.stdout).toContain("FAIL privacy .ai/local/prompts/linked.json — a symbolic link inside the local half");
    expect(run.stdout).not.toContain("private notes");
  });
});

describe("a ledger line from a stranger", () => {
  test("a ledger line nested 100,000 deep: every reader names it malformed and goes on, none overflows", () => {
    using repo = captured();
    fire(repo, "start", START);
    const deep = 100_000;
    const line = `{"ts":"2026-06-01T00:00:00.000Z","event":"note","head":"h","branch":"b","by":"y","p":${"[".repeat(deep)}1${"]".repeat(deep)}}\n`;
    writeFileSync(repo.path(".ai/local/state/ledger.jsonl"), line, { flag: "a" });
    for (const args of [["history"], ["history", "--json"], ["context"], ["context", "--json"]]) {
      const run = repo.mj(args);
      expect({ args, status: run.status, crashed: /internal error|call stack/i.test(run.stderr) }).toEqual({
        args,
        status: 0,
        crashed: false,
      });
    }
    expect(repo.mj(["history"]).stderr).toContain("skipped 1 malformed ledger line(s)");
    const validate = repo.mj(["history", "--validate"]);
    expect(validate.stdout).toMatch(/nested deeper than 64 levels/);
    expect(repo.mj(["doctor"]).stdout).toMatch(/nested deeper than 64 levels/);
    for (const run of story(repo)) expect(run.status).toBe(0);
  });
});

describe("symbolic links among the client's files", () => {
  test(".claude linked to a folder outside: capture install and uninstall refuse before writing anything, and status names the link", () => {
    using repo = layered();
    using away = outside();
    writeFileSync(join(away.dir, "settings.json"), '{"theirs":true}\n');
    symlinkSync(away.dir, repo.path(".claude"));
    const install = repo.mj(["capture", "install", "--provider", "claude-code"]);
    expect(install.status).toBe(15);
    expect(install.stderr).toContain(".claude is a symbolic link; majordomus writes nothing through one");
    expect(existsSync(repo.path(".mcp.json"))).toBe(false);
    expect(repo.mj(["capture", "uninstall", "--provider", "claude-code"]).status).toBe(15);
    expect(all(away.dir)).toEqual([join(away.dir, "settings.json")]);
    expect(readFileSync(join(away.dir, "settings.json"), "utf8")).toBe('{"theirs":true}\n');
    const status = JSON.parse(repo.mj(["capture", "status", "--json"]).stdout);
    expect(
      status.items.find(
        (r: { provider: string; aspect: string }) => r.provider === "claude-code" && r.aspect === "session",
      ),
    ).toMatchObject({ state: "unconfigured", reason: ".claude is a symbolic link; it was not read" });
  });

  test(".mcp.json linked to a private file: install leaves it unread and unchanged", () => {
    using repo = layered();
    using away = outside();
    const secret = join(away.dir, "id_rsa");
    writeFileSync(secret, "-----BEGIN a private key-----\n");
    symlinkSync(secret, repo.path(".mcp.json"));
    const install = repo.mj(["capture", "install", "--provider", "claude-code", "--merge"]);
    expect(install.status).toBe(15);
    expect(install.stderr).toContain(".mcp.json is a symbolic link");
    expect(install.stderr + install.stdout).not.toContain("private key");
    expect(readFileSync(secret, "utf8")).toBe("-----BEGIN a private key-----\n");
    expect(existsSync(repo.path(".claude"))).toBe(false);
  });
});

describe("consent from a stranger's file", () => {
  test("a tracked policy that sets commit and push on: a session end commits nothing and pushes nothing, and says how to consent", () => {
    using repo = captured();
    const remote = `${repo.dir}-remote.git`;
    try {
      repo.git("init", "-q", "--bare", remote);
      repo.git("remote", "add", "origin", remote);
      repo.git("push", "-q", "origin", "main");
      const policy = repo.path(".ai/repo/policy.yaml");
      writeFileSync(
        policy,
        readFileSync(policy, "utf8")
          .replace("commit_record_on_end: false", "commit_record_on_end: true")
          .replace("push_record_on_end: false", "push_record_on_end: true"),
      );
      repo.git("commit", "-q", "-am", "a stranger's policy");
      repo.git("push", "-q", "origin", "main");
      const head = repo.git("rev-parse", "HEAD");
      fire(repo, "start", START);
      const end = fire(repo, "end", END);
      expect(end.status).toBe(0);
      expect(repo.git("rev-parse", "HEAD")).toBe(head);
      expect(repo.git("--git-dir", remote, "rev-parse", "main")).toBe(head);
      expect(end.stderr).toContain(
        "the tracked policy sets session.commit_record_on_end: true; that acts with your credentials, so majordomus does it only when you consent in",
      );
      expect(end.stderr).toContain(".ai/local/state/consent.yaml");
    } finally {
      rmSync(remote, { recursive: true, force: true });
    }
  });
});

describe("diagnostics never run the repository's programs", () => {
  test("a shim that only carries the marker is drift: capture status and doctor report it and do not run it", () => {
    using repo = captured();
    const shim = repo.path(".claude/hooks/majordomus-capture");
    writeFileSync(
      shim,
      `${readFileSync(shim, "utf8").replace("#!/bin/sh\n", `#!/bin/sh\ntouch ${JSON.stringify(repo.path("pwned"))}\n`)}`,
      { mode: 0o755 },
    );
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace(
        "enforcement: []",
        "enforcement:\n  - name: prompts\n    wired_by: provider-hook:claude-code:prompt",
      ),
    );
    const status = repo.mj(["capture", "status", "--json"]);
    const row = JSON.parse(status.stdout).items.find(
      (r: { provider: string; aspect: string }) => r.provider === "claude-code" && r.aspect === "prompt",
    );
    expect(row).toMatchObject({ state: "named" });
    expect(row.reason).toContain("differs from what this majordomus writes (drift); it was not run");
    repo.mj(["doctor"]);
    expect(existsSync(repo.path("pwned"))).toBe(false);
  });

  test("a genuine shim in a repository that ships its own bin/majordomus: verified with this binary, the repository's never run", () => {
    using repo = captured();
    mkdirSync(repo.path("bin"));
    writeFileSync(repo.path("bin/majordomus"), `#!/bin/sh\ntouch ${JSON.stringify(repo.path("pwned"))}\n`, {
      mode: 0o755,
    });
    const status = repo.mj(["capture", "status"]);
    expect(status.stdout).toMatch(/claude-code:prompt\s+verified/);
    expect(existsSync(repo.path("pwned"))).toBe(false);
  });
});

describe("control characters never reach a terminal", () => {
  test("a force-added open-questions.md and a handover with escape sequences: the briefing, question list and doctor show them escaped; the briefing quotes record text", () => {
    using repo = captured();
    const evil = "\u001b]0;pwned\u0007\u001b[2J";
    mkdirSync(repo.path(".ai/local/state"), { recursive: true, mode: 0o700 });
    writeFileSync(
      repo.path(".ai/local/state/open-questions.md"),
      `# Open questions\n\n- [unresolved] none — Which ${evil}dialect? (2026-11-30)\n- not a question ${evil}\n`,
      { mode: 0o600 },
    );
    const handover = repo.mj(["handover", "--no-task"], {
      input: `# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\nRun ${evil}this.\n`,
    });
    expect(handover.status).toBe(0);
    const outputs = [
      fire(repo, "start", START),
      repo.mj(["question", "list"]),
      repo.mj(["doctor"]),
      repo.mj(["context"]),
      repo.mj(["handover", "--resolve"]),
    ];
    for (const run of outputs) {
      expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    const briefing = outputs[0]!.stdout;
    expect(briefing).toContain("> Run \\u001b]0;pwned\\u0007\\u001b[2Jthis.");
  });
});

describe("the local half stays private", () => {
  test("a clone whose tracked .gitignore does not ignore .ai/local: hooks write nothing there and say why; a command is refused", () => {
    using repo = captured();
    writeFileSync(repo.path(".gitignore"), "node_modules/\n");
    repo.git("commit", "-q", "-am", "a .gitignore without the local half");
    rmSync(repo.path(".ai/local"), { recursive: true, force: true });
    const runs = story(repo);
    for (const run of runs) expect(run.status).toBe(0);
    expect(runs[0]!.stderr).toContain(
      ".ai/local/ is not ignored by git, so its prompts and ledger could be committed; nothing was written",
    );
    expect(existsSync(repo.path(".ai/local"))).toBe(false);
    const start = repo.mj(["start", "a task", "--scope", "src"]);
    expect(start.status).toBe(15);
    expect(start.stderr).toContain("majordomus init --extend");
    // doctor --fix cannot fix there, and still reports why.
    const doctor = repo.mj(["doctor", "--fix"]);
    expect(doctor.status).toBe(10);
    expect(doctor.stderr).toContain("nothing fixed: .ai/local/ is not ignored by git");
    expect(doctor.stdout).toContain("FAIL privacy .ai/local — not ignored by git");
    // Put right, it works again.
    ok(repo.mj(["init", "--extend"]));
    expect(fire(repo, "start", START).stdout).toContain("## majordomus");
  });
});

describe("consent from a tracked file", () => {
  test("a consent file force-added into the repository grants nothing", () => {
    using repo = captured();
    mkdirSync(repo.path(".ai/local/state"), { recursive: true, mode: 0o700 });
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  commit_record_on_end: true\n", {
      mode: 0o600,
    });
    repo.git("add", "-f", ".ai/local/state/consent.yaml");
    repo.git("commit", "-q", "-m", "a stranger's consent");
    const head = repo.git("rev-parse", "HEAD");
    fire(repo, "start", START);
    const end = fire(repo, "end", END);
    expect(end.status).toBe(0);
    expect(repo.git("rev-parse", "HEAD")).toBe(head);
    expect(end.stderr).toContain("consent.yaml is tracked by git: consent from a file anyone can commit is no consent");
  });

  test("a consent file others may write (0666), or a symbolic link in its place, grants nothing and is named for what it is", () => {
    using repo = captured();
    const file = repo.path(".ai/local/state/consent.yaml");
    const elsewhere = join(repo.dir, "..", `consent-elsewhere-${process.pid}.yaml`);
    writeFileSync(elsewhere, "session:\n  commit_record_on_end: true\n", { mode: 0o600 });
    for (const [shape, make, says] of [
      [
        "mode 0666",
        () => {
          writeFileSync(file, "session:\n  commit_record_on_end: true\n");
          chmodSync(file, 0o666);
        },
        "may be written by others (mode 666)",
      ],
      [
        "a link",
        () => {
          rmSync(file, { force: true });
          symlinkSync(elsewhere, file);
        },
        "is a symbolic link; no consent is read from it",
      ],
    ] as const) {
      make();
      const head = repo.git("rev-parse", "HEAD");
      fire(repo, "start", { ...START, session_id: `cc-${shape}` });
      const end = fire(repo, "end", { ...END, session_id: `cc-${shape}` });
      expect(end.status).toBe(0);
      expect(`${shape}: ${repo.git("rev-parse", "HEAD")}`).toBe(`${shape}: ${head}`);
      expect(end.stderr).toContain(says);
    }
    rmSync(elsewhere, { force: true });
  });
});

describe("a folder where the layer keeps a file", () => {
  // Each file the layer reads, made a folder: every command says which and what to do (exit 10),
  // never "a bug"; doctor reports it among its findings and goes on; the hooks never exit 2 (a
  // manifest that cannot be read stops them with its reason, as a malformed one does; any other
  // file, they record what they can and exit 0).
  const FILES = [
    ".ai/local/state/ledger.jsonl",
    ".ai/local/state/open-questions.md",
    ".ai/repo/policy.yaml",
    ".ai/local/state/decisions.md",
    ".ai/manifest.yaml",
  ];

  for (const rel of FILES) {
    test(`${rel} as a folder`, () => {
      using repo = captured();
      rmSync(repo.path(rel), { force: true });
      mkdirSync(repo.path(rel));
      for (const shim of ["start", "prompt", "compact", "end"] as const) {
        const payload =
          shim === "prompt"
            ? { session_id: "cc-dir", prompt: "hi" }
            : { session_id: "cc-dir", source: "startup", reason: "other", trigger: "auto" };
        const run = fire(repo, shim, payload);
        expect({ shim, status: run.status }).toEqual({ shim, status: rel === ".ai/manifest.yaml" ? 10 : 0 });
        expect(run.stderr).not.toContain("bug");
      }
      const commands = [
        ["context"],
        ["history", "--limit", "2"],
        ["question", "list"],
        ["policy"],
        ["decision", "A choice", "--why", "a reason"],
        ["start", "a task", "--scope", "src"],
        ["handover", "--resolve"],
      ];
      const said: string[] = [];
      for (const args of commands) {
        const run = repo.mj(args);
        expect({ args, bug: run.stderr.includes("bug") }).toEqual({ args, bug: false });
        if (run.status !== 0) {
          expect({ args, status: run.status }).toEqual({ args, status: 10 });
          said.push(run.stderr);
        }
      }
      // At least one command needs the file, and says which it is and what to do.
      expect(said.length).toBeGreaterThan(0);
      for (const text of said) expect(text).toContain(`${rel} is a folder where majordomus keeps a file`);
      const doctor = repo.mj(["doctor"]);
      expect(doctor.status).toBe(10);
      expect(`${doctor.stdout}${doctor.stderr}`).toContain(`${rel} is a folder where majordomus keeps a file`);
      expect(doctor.stderr).not.toContain("bug");
    });
  }
});

describe("a FIFO where the layer keeps a file", () => {
  // Reading a FIFO waits for a writer that never comes: the layer is refused as for a link, at once.
  const FILES = [
    ".ai/local/state/open-questions.md",
    ".ai/local/state/decisions.md",
    ".ai/local/state/current.yaml",
    ".ai/local/state/ledger.jsonl",
    ".ai/repo/policy.yaml",
    ".ai/manifest.yaml",
  ];
  /** A run that a hang cannot hold: killed after 20 s (a signal, not an exit status, then). */
  const bounded = (repo: Repo, cmd: string, args: string[], input?: string) => {
    const run = spawnSync(cmd, args, { cwd: repo.dir, input, encoding: "utf8", timeout: 120_000 });
    return { status: run.status, signal: run.signal, stderr: run.stderr };
  };

  for (const rel of FILES) {
    test(`${rel} as a FIFO: the hooks say so and go on, the commands refuse (15), nothing waits on it`, () => {
      using repo = captured();
      rmSync(repo.path(rel), { force: true });
      expect(spawnSync("mkfifo", [repo.path(rel)]).status).toBe(0);
      const said = `${rel} is a FIFO where majordomus keeps a file`;
      for (const [shim, payload] of [
        ["majordomus-session-start", { session_id: "cc-fifo", source: "startup" }],
        ["majordomus-capture", { session_id: "cc-fifo", prompt: "hi" }],
        ["majordomus-session-end", { session_id: "cc-fifo", reason: "other" }],
      ] as const) {
        const run = bounded(repo, repo.path(".claude/hooks", shim), [], JSON.stringify(payload));
        expect({ shim, status: run.status, signal: run.signal }).toEqual({ shim, status: 0, signal: null });
        expect(run.stderr).toContain(said);
      }
      for (const args of [["context"], ["question", "list"], ["doctor"]]) {
        const run = bounded(repo, BIN, args);
        expect({ args, status: run.status, signal: run.signal }).toEqual({ args, status: 15, signal: null });
        expect(run.stderr).toContain(said);
      }
    });
  }

  test("the consent file, a lock and a shim's git answer as FIFOs: read through the safe open, nothing waits on them", () => {
    using repo = captured();
    for (const rel of [".ai/local/state/consent.yaml", ".ai/local/state/fifo.lock"])
      expect(spawnSync("mkfifo", [repo.path(rel)]).status).toBe(0);
    const answer = ".ai/local/cache/git-status.4242";
    for (const rel of [answer, `${answer}.rc`]) expect(spawnSync("mkfifo", [repo.path(rel)]).status).toBe(0);
    const start = bounded(
      repo,
      BIN,
      ["capture", "session", "--provider", "claude-code", "--event", "start", "--git-status", answer],
      JSON.stringify({ session_id: "cc-fifo", source: "startup" }),
    );
    expect({ status: start.status, signal: start.signal }).toEqual({ status: 0, signal: null });
    for (const args of [["doctor"], ["capture", "status", "--no-verify"], ["policy"]]) {
      const run = bounded(repo, BIN, args);
      expect({ args, signal: run.signal }).toEqual({ args, signal: null });
    }
  });

  test("doctor's log of hook failures as a FIFO: named among its findings, not waited on", () => {
    using repo = captured();
    const log = repo.path(".ai/local/session-contexts/.session-context.log");
    rmSync(log, { force: true });
    expect(spawnSync("mkfifo", [log]).status).toBe(0);
    const run = spawnSync(BIN, ["doctor"], { cwd: repo.dir, encoding: "utf8", timeout: 120_000 });
    expect(run.signal).toBeNull();
    expect(run.stdout).toContain(".session-context.log — unreadable: it is not a regular file");
  });
});

describe("an open-questions.md larger than any record", () => {
  test("force-added at 2 MB: not read (git tracks it, and it is too large); the briefing says so, check fails, and finish --outcome completed is refused", () => {
    using repo = captured();
    const rel = ".ai/local/state/open-questions.md";
    const line = (i: number) => `- [unresolved] t-1 — question ${i} of a stranger's long list (2026-12-01)\n`;
    writeFileSync(repo.path(rel), `# Open questions\n\n${Array.from({ length: 30_000 }, (_, i) => line(i)).join("")}`);
    repo.git("add", "-f", rel);
    repo.git("commit", "-q", "-m", "A stranger's questions");
    const said = /open-questions\.md is \d+ bytes, more than the 1048576 a file of its kind holds/;
    const start = fire(repo, "start", START);
    expect(start.status).toBe(0);
    // The briefing believes nothing of a file git tracks in the local half, and does not read it.
    expect(start.stdout).toContain(".ai/local/state/open-questions.md is tracked by git, so a checkout can replace it");
    expect(start.stdout).toContain("it was not read, so no question in it is known");
    expect(start.stdout).not.toContain("question 0 of");
    const list = repo.mj(["question", "list"]);
    expect(list.status).toBe(10);
    expect(list.stderr).toMatch(said);
    const check = repo.mj(["check"]);
    expect(check.stdout).toMatch(new RegExp(`FAIL blockers open-questions\\.md — .*${said.source}`));
    ok(repo.mj(["start", "a task", "--scope", "src"]));
    writeFileSync(repo.path("note.md"), HANDOVER);
    const finish = repo.mj(["finish", "--outcome", "completed", "--note", "note.md"]);
    expect(finish.status).not.toBe(0);
    expect(finish.stderr).toContain("malformed line(s) refuse --outcome completed");
  });
});

describe("a tracked policy larger than any record", () => {
  test("2 MB of it: never parsed; the hooks say the policy could not be read and go on, the commands name it (10)", () => {
    using repo = captured();
    const rel = ".ai/repo/policy.yaml";
    writeFileSync(repo.path(rel), `${readFileSync(repo.path(rel), "utf8")}# ${"x".repeat(2 * 1024 * 1024)}\n`);
    repo.git("add", rel);
    repo.git("commit", "-q", "-m", "A stranger's policy");
    const said = /policy\.yaml is \d+ bytes, more than the 1048576 a file of its kind holds/;
    const runs = story(repo);
    for (const run of runs) expect(run.status).toBe(0);
    // The start and end hooks need the policy and say why they went without it.
    for (const i of [0, 3]) expect(runs[i]!.stderr).toMatch(said);
    for (const args of [["policy"], ["context"]]) {
      const run = repo.mj(args);
      expect({ args, status: run.status }).toEqual({ args, status: 10 });
      expect(run.stderr).toMatch(said);
    }
  });
});

describe("section names from a stranger's policy", () => {
  // The policy is tracked: its section names are looked up only among the writers' own rows, so a
  // name every object answers to (constructor, toString) is a section nobody writes, not code.
  test("record_sections and required_sections naming constructor and toString: the session still closes, without a continuation record, and says why", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8")
        .replace("record_sections: [What Happened,", "record_sections: [constructor, toString, What Happened,")
        .replace(
          "required_sections: [Objective, Current State, Next Action]",
          "required_sections: [Objective, Current State, Next Action, toString]",
        ),
    );
    ok(repo.mj(["policy"]));
    fire(repo, "start", { session_id: "cc-names", source: "startup" });
    const end = fire(repo, "end", { session_id: "cc-names", reason: "other" });
    expect(end.status).toBe(0);
    expect(end.stderr).not.toContain("bug");
    const closed = closedRecords(repo);
    expect(closed.length).toBe(1);
    const text = readFileSync(repo.path(".ai/repo/sessions", closed[0]!), "utf8");
    expect(text).toContain('# constructor\n\nNo majordomus writer fills "constructor"');
    expect(text).toContain('# toString\n\nNo majordomus writer fills "toString"');
    expect(text).toContain("# What Happened");
    // No derivation writes a toString section: the continuation record is left out, said on stderr and by doctor.
    expect(end.stderr).toContain("the closing continuation record of");
    expect(end.stderr).toContain("no derivation can write: toString");
    expect(records(repo, "handovers")).toEqual([]);
    expect(ok(repo.mj(["history", "--limit", "50"])).stdout).not.toContain("provider.event.failed");
    expect(repo.mj(["doctor"]).stdout).toMatch(
      /^WARN policy handover\.required_sections — names toString, which no derivation writes/m,
    );
  });

  test("a team's own required section (Risks): every session end still closes its episode into one record, and the next start is briefed", () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace(
        "required_sections: [Objective, Current State, Next Action]",
        "required_sections: [Objective, Risks, Current State, Next Action]",
      ),
    );
    for (const n of [1, 2]) {
      fire(repo, "start", { session_id: `cc-risks-${n}`, source: "startup" });
      expect(fire(repo, "end", { session_id: `cc-risks-${n}`, reason: "other" }).status).toBe(0);
    }
    expect(closedRecords(repo).length).toBe(2);
    expect(readdirSync(repo.path(".ai/local/state/sessions-open")).filter((f) => f.endsWith(".yaml"))).toEqual([]);
    const brief = fire(repo, "start", { session_id: "cc-risks-3", source: "startup" });
    expect(brief.stdout).toStartWith("## majordomus");
    expect(brief.stdout).not.toContain("open since");
  });
});
