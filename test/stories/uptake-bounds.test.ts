// Uptake reads only what it may, through the installed end shim as Claude Code runs it, every open
// watched by strace: a transcript behind a linked folder, a FIFO, /proc, random bytes, a 100 MB line
// and a line nested two million deep each close the session with uptake not provable, the end
// returns, and nothing behind the link (the person's ~/.ssh) is ever opened.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture, hookEnv, settled, SHIMS } from "../support/capture.ts";
import { closedTexts, ok } from "../support/layered.ts";
import { scratch, type Repo } from "../support/repo.ts";

const STRACE = spawnSync("sh", ["-c", "command -v strace"], { encoding: "utf8" }).stdout.trim();
const HANDOVER = "# Objective\nA parser.\n\n# Current State\nStarted.\n\n# Next Action\nEdit `src/ini.ts`.\n";
/** One successful edit of the named file, as Claude Code writes it: what a transcript we must not read would credit. */
const EDIT = (root: string) =>
  [
    {
      type: "assistant",
      message: {
        id: "m",
        content: [
          { type: "tool_use", id: "t", name: "Write", input: { file_path: `${root}/src/ini.ts`, content: "x" } },
        ],
      },
    },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] } },
  ]
    .map((r) => JSON.stringify(r))
    .join("\n");

type Case = { name: string; path: (home: string) => string; make: (home: string, root: string) => void };

const CASES: Case[] = [
  {
    name: "behind a linked folder (projects/x -> ~/.ssh)",
    path: (home) => join(home, ".claude/projects/x/id_rsa.jsonl"),
    make: (home, root) => {
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh/id_rsa.jsonl"), EDIT(root));
      symlinkSync(join(home, ".ssh"), join(home, ".claude/projects/x"));
    },
  },
  {
    name: "outside the client's folder",
    path: (home) => join(home, ".ssh/id_rsa.jsonl"),
    make: (home, root) => {
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh/id_rsa.jsonl"), EDIT(root));
    },
  },
  {
    name: "a FIFO",
    path: (home) => join(home, ".claude/projects/p/fifo.jsonl"),
    make: (home) => void spawnSync("mkfifo", [join(home, ".claude/projects/p/fifo.jsonl")]),
  },
  { name: "/proc/self/environ", path: () => "/proc/self/environ", make: () => {} },
  {
    name: "random bytes",
    path: (home) => join(home, ".claude/projects/p/noise.jsonl"),
    make: (home) =>
      writeFileSync(
        join(home, ".claude/projects/p/noise.jsonl"),
        Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919 + (i >> 8)) % 256)),
      ),
  },
  {
    name: "one line of 100 MB, then the edit",
    path: (home) => join(home, ".claude/projects/p/long.jsonl"),
    make: (home, root) => {
      const fd = openSync(join(home, ".claude/projects/p/long.jsonl"), "w");
      writeSync(fd, '{"type":"assistant","message":{"content":"');
      const mib = "x".repeat(1 << 20);
      for (let i = 0; i < 100; i++) writeSync(fd, mib);
      writeSync(fd, `"}}\n${EDIT(root)}\n`);
      closeSync(fd);
    },
  },
  {
    name: "a tool call of 4 MB nested two million deep, then the edit",
    path: (home) => join(home, ".claude/projects/p/deep.jsonl"),
    make: (home, root) =>
      writeFileSync(
        join(home, ".claude/projects/p/deep.jsonl"),
        `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"d","name":"Write","input":${"[".repeat(2_000_000)}${"]".repeat(2_000_000)}}]}}\n${EDIT(root)}\n`,
      ),
  },
];

/** A session handed the Next Action and started as Claude Code starts one, with its transcript where `transcript` says. */
function handed(repo: Repo, home: string, transcript: string) {
  mkdirSync(join(home, ".claude/projects/p"), { recursive: true });
  ok(repo.mj(["handover"], { input: HANDOVER }));
  const env = { CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const payload = { session_id: "bounds", transcript_path: transcript, cwd: repo.dir };
  fire(repo, "start", { ...fixture("SessionStart-startup.json"), ...payload }, env);
  return { env, end: JSON.stringify({ ...fixture("SessionEnd-other.json"), ...payload }) };
}

describe("uptake's reads, watched", () => {
  for (const c of CASES)
    test.skipIf(STRACE === "")(
      `a transcript ${c.name}: not provable, the end returns, nothing behind the link opened`,
      () => {
        using repo = captured();
        const home = scratch("majordomus-uptake-bounds-");
        try {
          const { env, end } = handed(repo, home, c.path(home));
          c.make(home, repo.dir);
          const log = join(home, "opens.log");
          const run = spawnSync(
            STRACE,
            ["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", log, join(repo.dir, SHIMS.end)],
            {
              cwd: repo.dir,
              input: end,
              env: { ...process.env, ...hookEnv(env) },
              encoding: "utf8",
              timeout: 120_000,
            },
          );
          expect(run.status).toBe(0);
          settled(repo);
          const opened = readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l.includes(join(home, ".ssh")) || l.includes("/.claude/projects/x/"))
            .filter((l) => !/= -1 /.test(l));
          expect(opened).toEqual([]);
          const record = closedTexts(repo).at(-1) ?? "";
          expect(record).toMatch(/\nuptake:\n {2}state: not_provable\n/);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    );

  test("an edit the transcript reports while git shows no file changed at all is not credited: ignored, never acted", () => {
    using repo = captured();
    const home = scratch("majordomus-uptake-bounds-");
    try {
      const transcript = join(home, ".claude/projects/p/claimed.jsonl");
      const { env, end } = handed(repo, home, transcript);
      writeFileSync(transcript, `${EDIT(repo.dir)}\n`);
      expect(repo.git("status", "--porcelain").trim()).toBe("");
      fire(repo, "end", end, env);
      expect(closedTexts(repo).at(-1) ?? "").toMatch(/\nuptake:\n {2}state: ignored\n/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
