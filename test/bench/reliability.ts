/**
 * `npm run bench:reliability`: kills majordomus's writers at random moments, hundreds of times, and
 * counts what a crash could cost. Not part of `npm test` (it takes minutes); prints, never asserts.
 *
 *   lost    an end event that reached the ledger (or took its claim) and has no closed record
 *           after the next event and `recover`
 *   doubled an episode with more than one closed record
 *   torn    a ledger line that is not JSON, a record or prompt that does not parse
 *   wedged  the next event and `recover` after the kills took more than 3 s (waited on a lock)
 *   stale   lock files a killed writer left (each is broken by its next writer; shown, not a failure)
 *
 * Writers: the end hook (its whole close), the compact hook with its worker, `majordomus handover`,
 * the prompt hook; and a client's container ending with it (a PID namespace, where available).
 * RUNS=<n> per writer (default 300).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../support/env.ts";

const RUNS = Number(process.env.RUNS ?? 300);
const ROOT = mkdtempSync(join(tmpdir(), "majordomus-reliability-"));
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));

const env = {
  ...process.env,
  PATH: `${join(BIN, "..")}:${process.env.PATH}`,
  MAJORDOMUS_LOG: "silent",
  HOME: ROOT,
  GIT_CONFIG_GLOBAL: join(ROOT, "gitconfig"),
};
writeFileSync(env.GIT_CONFIG_GLOBAL, "[user]\n\tname = Bench\n\temail = bench@example.invalid\n");
const sh = (cwd: string, cmd: string, args: string[], input?: string) =>
  spawnSync(cmd, args, { cwd, input, env, encoding: "utf8" });

function repo(name: string): string {
  const dir = join(ROOT, name);
  sh(ROOT, "git", ["init", "-q", "-b", "main", dir]);
  sh(dir, "git", ["commit", "-q", "--allow-empty", "-m", "start"]);
  sh(dir, BIN, ["init"]);
  sh(dir, BIN, ["capture", "install"]);
  sh(dir, "git", ["add", "-A"]);
  sh(dir, "git", ["commit", "-q", "-m", "layer"]);
  return dir;
}

/** A slow git, so a close spans long enough for kills to land all over it. */
const slow = join(ROOT, "slow");
sh(ROOT, "mkdir", ["-p", slow]);
writeFileSync(
  join(slow, "git"),
  `#!/bin/sh\nsleep 0.01\nexec ${sh(ROOT, "sh", ["-c", "command -v git"]).stdout.trim()} "$@"\n`,
);
chmodSync(join(slow, "git"), 0o755);
const slowEnv = { ...env, PATH: `${slow}:${env.PATH}` };

function killedAfter(
  cwd: string,
  cmd: string,
  args: string[],
  input: string,
  ms: number,
  withEnv = slowEnv,
): Promise<void> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env: withEnv, stdio: ["pipe", "ignore", "ignore"] });
    child.stdin.end(input);
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("exit", () => {
      clearTimeout(timer);
      done();
    });
  });
}

const shim = (dir: string, name: string) => join(dir, ".claude", "hooks", name);
const lines = (dir: string) =>
  readFileSync(join(dir, ".ai/local/state/ledger.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "");

function count(dir: string): { lost: number; doubled: number; torn: number; wedged: number; stale: number } {
  const started = Date.now();
  sh(
    dir,
    shim(dir, "majordomus-session-start"),
    [],
    JSON.stringify({ session_id: "after-the-kills", source: "startup" }),
  );
  sh(dir, BIN, ["recover"]);
  const tookMs = Date.now() - started;
  const locks = readdirSync(join(dir, ".ai/local/state"), { recursive: true })
    .map(String)
    .filter((f) => /\.lock(\.break)?$/.test(f));
  // Stale locks are broken by the next writer of each; the ones left here are those no later writer touched.
  const stale = locks.filter((f) => sh(dir, BIN, ["doctor"]).stdout.includes(`${f} — stale`));
  const wedged = tookMs > 3_000 ? 1 : 0;
  let torn = 0;
  const parsed = lines(dir).flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      torn++;
      return [];
    }
  });
  const received = new Set(
    parsed
      .filter((e) => e.event === "provider.event.received" && e.provider_event === "end")
      .map((e) => String(e.provider_session)),
  );
  const ids = new Map(
    parsed.filter((e) => e.event === "session.started").map((e) => [String(e.provider_session), String(e.session_id)]),
  );
  const records = readdirSync(join(dir, ".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
  const per = (id: string) => records.filter((f) => f.endsWith(`--${id}.md`)).length;
  let lost = 0;
  let doubled = 0;
  for (const client of received) {
    const n = per(ids.get(client) ?? "?");
    if (n === 0) lost++;
    if (n > 1) doubled++;
  }
  for (const kind of ["handovers", "checkpoints"]) {
    for (const f of readdirSync(join(dir, ".ai/local/state", kind)).filter(
      (n) => n.endsWith(".md") && n !== "README.md",
    ))
      if (!readFileSync(join(dir, ".ai/local/state", kind, f), "utf8").startsWith("---\nschema:")) torn++;
  }
  for (const f of readdirSync(join(dir, ".ai/local/prompts")).filter((n) => n.endsWith(".json"))) {
    try {
      JSON.parse(readFileSync(join(dir, ".ai/local/prompts", f), "utf8"));
    } catch {
      torn++;
    }
  }
  return { lost, doubled, torn, wedged, stale: stale.length };
}

const WRITERS = new Set((process.env.WRITERS ?? "end,compact,handover,prompt,container").split(","));
const out: string[] = [
  `Reliability: ${RUNS} random kills per writer (bun ${Bun.version})`,
  "",
  "| writer | kills | lost | doubled | torn | wedged | stale locks left |",
  "|---|---:|---:|---:|---:|---:|---:|",
];
const row = (name: string, c: ReturnType<typeof count>) =>
  out.push(`| ${name} | ${RUNS} | ${c.lost} | ${c.doubled} | ${c.torn} | ${c.wedged} | ${c.stale} |`);

if (WRITERS.has("end")) {
  const dir = repo("end");
  for (let i = 0; i < RUNS; i++) {
    sh(dir, shim(dir, "majordomus-session-start"), [], JSON.stringify({ session_id: `end-${i}`, source: "startup" }));
    await killedAfter(
      dir,
      shim(dir, "majordomus-session-end"),
      [],
      JSON.stringify({ session_id: `end-${i}`, reason: "other" }),
      Math.floor(Math.random() * 80),
    );
  }
  row("end hook (its close)", count(dir));
}
if (WRITERS.has("compact")) {
  const dir = repo("compact");
  sh(dir, shim(dir, "majordomus-session-start"), [], JSON.stringify({ session_id: "live", source: "startup" }));
  for (let i = 0; i < RUNS; i++)
    await killedAfter(
      dir,
      shim(dir, "majordomus-session-compact"),
      [],
      JSON.stringify({ session_id: "live", trigger: "auto" }),
      Math.floor(Math.random() * 40),
    );
  row("compact hook and its worker", count(dir));
}
if (WRITERS.has("handover")) {
  const dir = repo("handover");
  const body = "# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\nC.\n";
  for (let i = 0; i < RUNS; i++)
    await killedAfter(dir, BIN, ["handover", "--no-task"], body, Math.floor(Math.random() * 30), env);
  row("majordomus handover", count(dir));
}
if (WRITERS.has("prompt")) {
  const dir = repo("prompt");
  sh(dir, shim(dir, "majordomus-session-start"), [], JSON.stringify({ session_id: "live", source: "startup" }));
  for (let i = 0; i < RUNS; i++)
    await killedAfter(
      dir,
      shim(dir, "majordomus-capture"),
      [],
      JSON.stringify({ session_id: "live", prompt_id: `p-${i}`, prompt: "x".repeat(10_000) }),
      Math.floor(Math.random() * 25),
      env,
    );
  row("prompt hook", count(dir));
}
if (!WRITERS.has("container")) {
  // not asked for
} else if (sh(ROOT, "unshare", ["--pid", "--fork", "--mount-proc", "true"]).status === 0) {
  const dir = repo("container");
  const n = Math.min(RUNS, 30);
  for (let i = 0; i < n; i++) {
    sh(dir, shim(dir, "majordomus-session-start"), [], JSON.stringify({ session_id: `ns-${i}`, source: "startup" }));
    writeFileSync(join(ROOT, "end.json"), JSON.stringify({ session_id: `ns-${i}`, reason: "other" }));
    spawnSync(
      "unshare",
      [
        "--pid",
        "--fork",
        "--mount-proc",
        "sh",
        "-c",
        `${JSON.stringify(shim(dir, "majordomus-session-end"))} < ${JSON.stringify(join(ROOT, "end.json"))}`,
      ],
      { cwd: dir, env },
    );
  }
  // No later event here: the container exit must leave the record by itself.
  const records = readdirSync(join(dir, ".ai/repo/sessions")).filter(
    (f) => f.endsWith(".md") && f !== "README.md",
  ).length;
  out.push(`| container exit (PID namespace), no later event | ${n} | ${n - records} | 0 | 0 | 0 | 0 |`);
} else out.push("| container exit (PID namespace) | skipped: unshare is not permitted here | | | | | |");
console.log(out.join("\n"));
