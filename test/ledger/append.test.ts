import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workspace } from "../../src/workspace/workspace.ts";
import { appendEvent } from "../../src/ledger/store.ts";
import { Failure } from "../../src/lib/failure.ts";
import { PROJECT } from "../support/env.ts";
import { Repo } from "../support/repo.ts";

const WORKER = join(PROJECT, "test", "support", "append-worker.ts");

function layered(): Repo {
  const repo = Repo.init();
  repo.commit("start");
  const init = repo.mj(["init"]);
  if (init.status !== 0) throw new Error(init.stderr);
  return repo;
}

function ledgerLines(repo: Repo): string[] {
  return readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

async function spawnWorkers(repo: Repo, workers: number, count: number, pad: (w: number) => number) {
  const procs = Array.from({ length: workers }, (_, w) =>
    Bun.spawn([process.execPath, WORKER, repo.dir, String(w), String(count), String(pad(w))], {
      stdout: "ignore",
      stderr: "pipe",
    }),
  );
  const codes = await Promise.all(procs.map((p) => p.exited));
  expect(codes.every((c) => c === 0)).toBe(true);
}

describe("ledger append", () => {
  test("envelope first, in order, then the payload", async () => {
    using repo = layered();
    process.env.MAJORDOMUS_NOW = "2026-05-06T07:08:09Z";
    try {
      const ctx = await workspace(repo.dir);
      const line = await appendEvent(
        { ledger: ctx.ledger, position: ctx.position, episodeId: "ep-1" },
        "layer.initialized",
        { mode: "extend", created: 2 },
      );
      expect(Object.keys(JSON.parse(line))).toEqual([
        "ts",
        "event",
        "head",
        "branch",
        "by",
        "session",
        "mode",
        "created",
      ]);
      expect(JSON.parse(line).ts).toBe("2026-05-06T07:08:09.000Z");
      expect(JSON.parse(line).head).toBe(repo.git("rev-parse", "HEAD"));
      expect(ledgerLines(repo).at(-1)).toBe(line);
    } finally {
      delete process.env.MAJORDOMUS_NOW;
    }
  });

  test.each(["ts", "event", "head", "branch", "by", "session"])(
    "a payload key %p that repeats an envelope key is refused with 13",
    async (key) => {
      using repo = layered();
      const ctx = await workspace(repo.dir);
      const before = ledgerLines(repo).length;
      const err = await appendEvent({ ledger: ctx.ledger, position: ctx.position }, "layer.initialized", {
        mode: "x",
        created: 1,
        [key]: "y",
      }).catch((e) => e);
      expect(err).toBeInstanceOf(Failure);
      expect(err.code).toBe(13);
      expect(err.message).toContain(`"${key}"`);
      expect(ledgerLines(repo).length).toBe(before);
    },
  );

  test("an unregistered event, or a missing required field, is refused and nothing is written", async () => {
    using repo = layered();
    const ctx = await workspace(repo.dir);
    const before = ledgerLines(repo).length;
    const unknown = await appendEvent({ ledger: ctx.ledger, position: ctx.position }, "made.up", {}).catch((e) => e);
    expect(unknown.code).toBe(13);
    expect(unknown.message).toContain("not registered");
    const missing = await appendEvent({ ledger: ctx.ledger, position: ctx.position }, "layer.initialized", {
      mode: "x",
    }).catch((e) => e);
    expect(missing.code).toBe(13);
    expect(missing.message).toContain('"created"');
    expect(ledgerLines(repo).length).toBe(before);
  });

  test("24 processes appending at once: every line whole, none lost, each writer's order kept", async () => {
    using repo = layered();
    const workers = 24;
    const count = 40;
    // Every third writer pads its lines past PIPE_BUF (4096 bytes), where O_APPEND alone promises less.
    await spawnWorkers(repo, workers, count, (w) => (w % 3 === 0 ? 20_000 : 10));
    const lines = ledgerLines(repo).slice(1);
    expect(lines.length).toBe(workers * count);
    const seen = new Map<number, number[]>();
    for (const line of lines) {
      const entry = JSON.parse(line);
      const list = seen.get(entry.worker) ?? [];
      list.push(entry.seq);
      seen.set(entry.worker, list);
    }
    for (let w = 0; w < workers; w++) expect(seen.get(w)).toEqual(Array.from({ length: count }, (_, i) => i));
  }, 300_000);

  test("rotating while 10 processes append loses no line and deletes nothing", async () => {
    using repo = layered();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(policy, readFileSync(policy, "utf8").replace("retention_max_lines: 5000", "retention_max_lines: 25"));
    const appending = spawnWorkers(repo, 10, 30, () => 100);
    const rotations: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = Bun.spawnSync([join(PROJECT, "dist", "majordomus"), "history", "--rotate"], {
        cwd: repo.dir,
        stderr: "pipe",
      });
      rotations.push(r.exitCode ?? -1);
      await Bun.sleep(15);
    }
    await appending;
    const state = repo.path(".ai/local/state");
    const archives = readdirSync(state).filter((f) => f.endsWith(".archived.jsonl"));
    const archived = archives.flatMap((f) =>
      readFileSync(join(state, f), "utf8")
        .split("\n")
        .filter((l) => l !== ""),
    );
    const all = [...archived, ...ledgerLines(repo)].map((l) => JSON.parse(l));
    const appended = all.filter((e) => e.worker !== undefined);
    expect(appended.length).toBe(300);
    expect(new Set(appended.map((e) => `${e.worker}:${e.seq}`)).size).toBe(300);
    expect(archives.length).toBeGreaterThan(0);
    expect(all.filter((e) => e.event === "ledger.rotated").length).toBe(archives.length);
    expect(rotations.every((c) => c === 0)).toBe(true);
  }, 300_000);
});
