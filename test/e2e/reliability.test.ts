// What goes wrong in practice: racing events, repeated events, killed processes, garbage payloads.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { BIN } from "../support/env.ts";
import { captured, hookEnv, openKeys, settled, SHIMS, sessionFiles } from "../support/capture.ts";
import { ledger } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";
import { readRecord } from "../../src/records/record.ts";
import { RECORD_KINDS } from "../../src/records/kinds.ts";

type Spawned = { status: number | null; stdout: string; stderr: string };

async function spawnShim(repo: Repo, shim: keyof typeof SHIMS, input: string | Uint8Array): Promise<Spawned> {
  const proc = Bun.spawn([join(repo.dir, SHIMS[shim])], {
    cwd: repo.dir,
    env: { ...process.env, ...hookEnv() },
    stdin: typeof input === "string" ? Buffer.from(input) : input,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, status] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { status, stdout, stderr };
}

/** Run `jobs` with at most `width` at a time. */
async function pool<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

function tree(dir: string, skip: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const rel = relative(dir, full);
      if (skip.some((s) => rel === s || rel.startsWith(`${s}/`))) continue;
      out.push(`${rel} ${statSync(full).mtimeMs}`);
      if (statSync(full).isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

describe("reliability", () => {
  test("50 concurrent start events over 10 client sessions open exactly 10 episodes", async () => {
    using repo = captured();
    const runs = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        spawnShim(
          repo,
          "start",
          JSON.stringify({ session_id: `window-${i % 10}`, source: i < 10 ? "startup" : "resume" }),
        ),
      ),
    );
    expect(runs.every((r) => r.status === 0)).toBe(true);
    expect(openKeys(repo).length).toBe(10);
    const started = ledger(repo).filter((e) => e.event === "session.started");
    expect(started.length).toBe(10);
    expect(new Set(started.map((e) => e.provider_session)).size).toBe(10);
    expect(ledger(repo).filter((e) => e.event === "provider.event.received").length).toBe(50);
  }, 600_000);

  test("an end event delivered 5 times at once gives exactly one record", async () => {
    using repo = captured();
    await spawnShim(repo, "start", JSON.stringify({ session_id: "dup", source: "startup" }));
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => spawnShim(repo, "end", JSON.stringify({ session_id: "dup", reason: "other" }))),
    );
    expect(runs.every((r) => r.status === 0 && r.stdout === "")).toBe(true);
    // Only the event that claimed the close handed work off: one ticket at most, then none.
    settled(repo);
    expect(sessionFiles(repo).length).toBe(1);
    expect(ledger(repo).filter((e) => e.event === "session.closed").length).toBe(1);
    expect(ledger(repo).filter((e) => e.event === "task.handed_over").length).toBe(1);
    expect(openKeys(repo)).toEqual([]);
  }, 300_000);

  test("processes killed at random points while writing leave no torn record and no torn ledger line", async () => {
    using repo = captured();
    const body = Array.from({ length: 30 }, (_, i) => `progress line ${i} ${"x".repeat(200)}`).join("\n");
    const procs = Array.from({ length: 40 }, (_, i) => {
      const kind = i % 2 === 0 ? "checkpoint" : "handover";
      const input = kind === "checkpoint" ? body : `# Objective\n${body}\n# Current State\nx\n# Next Action\ny\n`;
      const proc = Bun.spawn([BIN, kind], {
        cwd: repo.dir,
        stdin: Buffer.from(input),
        stdout: "ignore",
        stderr: "ignore",
      });
      setTimeout(() => proc.kill("SIGKILL"), 5 + Math.floor(Math.random() * 60));
      return proc.exited;
    });
    await Promise.all(procs);
    for (const kind of [RECORD_KINDS.checkpoint, RECORD_KINDS.handover]) {
      const dir = repo.path(".ai/local/state", kind.section);
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md");
      } catch {
        names = [];
      }
      for (const name of names) {
        const parsed = await readRecord(kind, join(dir, name), name);
        expect({ name, ok: parsed.ok }).toEqual({ name, ok: true });
      }
    }
    const lines = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(Bun.spawnSync([BIN, "history", "--validate"], { cwd: repo.dir }).exitCode).toBe(0);
  }, 300_000);

  test("1,000 malformed payloads: never exit 2, never write outside .ai/, never print on end or compact", async () => {
    using repo = captured();
    const before = tree(repo.dir, [".ai", ".git"]);
    const bad: Array<string | Uint8Array> = [
      "",
      "{",
      "null",
      "[]",
      '"just a string"',
      "{}",
      '{"session_id": 42}',
      '{"session_id": null, "reason": ["x"]}',
      '{"session_id": "../../../etc/passwd", "reason": "other"}',
      '{"session_id": "$(touch pwned)", "source": "`touch pwned2`"}',
      '{"session_id": "a;rm -rf /;b", "reason": "clear"}',
      '{"session_id": "..", "prompt": "../x"}',
      '{"session_id": "x\\u0000y", "prompt_id": "../../escape", "prompt": "hi"}',
      '{"prompt_id": "/tmp/abs", "prompt": "hi"}',
      JSON.stringify({ session_id: "big", prompt: "x".repeat(2 * 1024 * 1024) }),
      new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)),
      "\u00ff\u00fe\u0000\u0001",
    ];
    const jobs: Array<() => Promise<{ shim: string; r: Spawned }>> = [];
    for (let i = 0; i < 1000; i++) {
      const shim = (["start", "compact", "end", "prompt"] as const)[i % 4];
      const base = bad[i % bad.length]!;
      const payload =
        typeof base === "string" && base.startsWith("{") && i % 3 === 0 ? base.replace("{", `{"n": ${i}, `) : base;
      jobs.push(async () => ({ shim, r: await spawnShim(repo, shim, payload) }));
    }
    const results = await pool(jobs, 8);
    settled(repo);
    for (const { shim, r } of results) {
      expect(r.status).not.toBe(2);
      expect([0, 12]).toContain(r.status ?? -1);
      // End and compact print nothing; a prompt prints nothing but the notice that another session opened beside its own.
      if (shim === "end" || shim === "compact") expect({ shim, stdout: r.stdout }).toEqual({ shim, stdout: "" });
      if (shim === "prompt" && r.stdout !== "")
        expect(r.stdout).toContain("## majordomus — another session opened beside this one");
    }
    expect(tree(repo.dir, [".ai", ".git"])).toEqual(before);
    for (const name of ["pwned", "pwned2", "escape"]) expect(readdirSync(repo.dir)).not.toContain(name);
    const lines = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    // Every event drew its boundary: a receipt for each one that reached the layer.
    expect(lines.filter((l) => l.includes('"provider.event.received"')).length).toBe(1000);
  }, 600_000);
});
