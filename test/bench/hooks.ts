/**
 * Hook costs: each hook run through its real shim, as Claude Code runs it, beside the no-op binary,
 * on an empty repository and on one with 10k ledger lines, 1k handovers, 1k checkpoints, 1k closed
 * sessions and 1k prompts. Part of `npm run bench`.
 */
import {
  closeSync,
  copyFileSync,
  cpSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { settled } from "../support/capture.ts";
import { BINARY_RECORD, engineEnv } from "../../src/wiring/shims.ts";
import { emptyRepo, withCapture, withLedgerLines, withRecords, withSessionsAndPrompts } from "./fixtures.ts";
import { freshlyWritten, measure, median, pairedRatio, report, verdict, type Result, type Row } from "./measure.ts";

const SHIM = {
  prompt: ".claude/hooks/majordomus-capture",
  start: ".claude/hooks/majordomus-session-start",
  compact: ".claude/hooks/majordomus-session-compact",
  end: ".claude/hooks/majordomus-session-end",
} as const;
const env = { PATH: `${join(BIN, "..")}:${process.env.PATH}` };

function open(dir: string, session: string, withEnv: Record<string, string> = env): void {
  spawnSync(join(dir, SHIM.start), [], {
    cwd: dir,
    input: JSON.stringify({ session_id: session, source: "startup" }),
    env: { ...process.env, ...withEnv },
  });
}

/** Wait (untimed) until the work earlier hooks handed to their workers is done, so no run shares the machine with one. */
const drained = (dir: string) => settled(dir, 30_000);

/** Lines of the ledger so far: how the bench sees a record land without reading the whole file each poll. */
const ledgerSize = (dir: string) => statSync(join(dir, ".ai", "local", "state", "ledger.jsonl")).size;

/**
 * From spawning the hook (as the client does) until the work it handed off has written its record
 * (compact: the checkpoint's ledger line; end: the episode's `session.closed` line): the latency
 * the person sees. Median over `runs`, in ms. Polls the ledger's tail every millisecond.
 */
function eventToRecord(dir: string, event: "compact" | "end", runs: number): number {
  const waits: number[] = [];
  const done = event === "compact" ? '"event":"task.checkpoint"' : '"event":"session.closed"';
  for (let n = 0; n < runs; n++) {
    const session = event === "compact" ? "bench-live" : `latency-${n}-${Date.now()}`;
    if (event === "end") open(dir, session);
    drained(dir);
    const from = ledgerSize(dir);
    const started = performance.now();
    spawnSync(join(dir, SHIM[event]), [], {
      cwd: dir,
      input: JSON.stringify(
        event === "end" ? { session_id: session, reason: "other" } : { session_id: session, trigger: "auto" },
      ),
      env: { ...process.env, ...env },
    });
    for (;;) {
      const fd = openSync(join(dir, ".ai", "local", "state", "ledger.jsonl"), "r");
      const size = fstatSync(fd).size;
      const tail = Buffer.alloc(size - from);
      readSync(fd, tail, 0, tail.length, from);
      closeSync(fd);
      if (tail.toString("utf8").includes(done)) break;
      if (performance.now() - started > 10_000) throw new Error(`${event}: no record after 10 s`);
      Bun.sleepSync(1);
    }
    waits.push(performance.now() - started);
  }
  drained(dir);
  return median(waits);
}

/**
 * BENCH_BASELINE=<folder holding another build named majordomus>: the same hooks run through the
 * same shims with that binary, in the same run, for a paired before/after figure. Each binary runs
 * them in a copy of its own of the large repository, made before any hook ran, where nothing else
 * runs: neither reads what the other wrote (an older binary does not know a newer one's repository
 * id), and neither copy gets the floors' files, the other clients' hooks and their commits that the
 * large repository itself collects (which made that repository's start 1.1-1.3x its baseline's).
 */
const BASELINE = process.env.BENCH_BASELINE;

/**
 * A build copied beside the benchmark's repositories (as freshly written as the others, see measure.ts). Both sides of
 * the before/after pair run a copy: the same build run from dist/ measured 1.1x its own copy in a temp folder.
 */
function binaryCopy(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), "majordomus-paired-"));
  copyFileSync(from, join(dir, "majordomus"));
  freshlyWritten(join(dir, "majordomus"));
  return dir;
}

/** One side of the before/after pair: its own copy of the large repository, whose shims run its own copy of a build. */
function pairedRows(side: "current" | "baseline", copy: string, bin: string): Row[] {
  // The shims run the binary `capture install` recorded before any on PATH: the copy records this side's.
  writeFileSync(join(copy, BINARY_RECORD), `${join(bin, "majordomus")}\n`);
  const sideEnv = { PATH: `${bin}:${process.env.PATH}` };
  return hookRows("large", copy, sideEnv).map((row) => ({ ...row, name: `${side} ${row.name}` }));
}

/** Every repository the rows run in: a run waits until none of them has a worker still busy. */
const benched: string[] = [];

/** A prompt that names a URL and two paths (what loads the maintained rule set). */
const URL_PROMPT =
  "please look at https://github.com/acme/billing/blob/main/src/ledger/client.ts and /home/dev/project/src/ledger/client.test.ts";
/** A pasted stack trace and log of 64 KB: what the prompt hook must stay flat on. */
const LOG_PROMPT = Array.from(
  { length: 700 },
  (_, i) =>
    `2026-11-30T12:${String(i % 60).padStart(2, "0")}:07.123Z ERROR [worker-${i % 8}] at com.example.billing.LedgerClient.post(LedgerClient.java:${100 + i}) request_id=7f3c${i.toString(16).padStart(4, "0")}-aa path=/var/lib/app/data/${i}.json status=503 retry=3`,
)
  .join("\n")
  .slice(0, 65_536);
/** The same log, 900 KB of it: the largest paste the prompt hook reads whole (over 1 MiB the payload is not read). */
const LOG_900 = LOG_PROMPT.repeat(14).slice(0, 900_000);

/** The prompts the prompt hook is timed on: the row's name after "prompt", its prompt ids' prefix, the text. */
const PROMPTS: ReadonlyArray<readonly [string, string, string]> = [
  ["", "p", "say ok"],
  [", a URL and paths", "pu", URL_PROMPT],
  [", a 64 KB pasted log", "pl", LOG_PROMPT],
  [", a 900 KB pasted log", "pm", LOG_900],
];

function hookRows(label: string, dir: string, rowEnv: Record<string, string> = env): Row[] {
  open(dir, "bench-live", rowEnv);
  benched.push(dir);
  // Each run of the new-episode row opens one; the next run closes it first (untimed), so open
  // episodes do not pile up from run to run.
  let fresh: string | undefined;
  const closeFresh = () => {
    if (fresh)
      spawnSync(join(dir, SHIM.end), [], {
        cwd: dir,
        input: JSON.stringify({ session_id: fresh, reason: "other" }),
        env: { ...process.env, ...rowEnv, MAJORDOMUS_HOOK_WORK: "foreground" },
      });
    fresh = undefined;
  };
  const settle = (extra?: (n: number) => void) => (n: number) => {
    for (const d of benched) drained(d);
    extra?.(n);
    drained(dir);
  };
  return [
    ...PROMPTS.map(([kind, id, prompt]) => ({
      name: `prompt${kind} (${label})`,
      cmd: [join(dir, SHIM.prompt)],
      cwd: dir,
      env: rowEnv,
      stdin: (n: number) => JSON.stringify({ session_id: "bench-live", prompt_id: `${id}-${label}-${n}`, prompt }),
      before: settle(),
    })),
    {
      name: `start, new episode (${label})`,
      cmd: [join(dir, SHIM.start)],
      cwd: dir,
      env: rowEnv,
      stdin: (n) => JSON.stringify({ session_id: (fresh = `fresh-${label}-${n}`), source: "startup" }),
      before: settle(() => closeFresh()),
    },
    {
      name: `start, resumed episode (${label})`,
      cmd: [join(dir, SHIM.start)],
      cwd: dir,
      env: rowEnv,
      stdin: JSON.stringify({ session_id: "bench-live", source: "resume" }),
      before: settle(),
    },
    {
      name: `compact (${label})`,
      cmd: [join(dir, SHIM.compact)],
      cwd: dir,
      env: rowEnv,
      stdin: JSON.stringify({ session_id: "bench-live", trigger: "auto" }),
      before: settle(),
    },
    {
      name: `end (${label})`,
      cmd: [join(dir, SHIM.end)],
      cwd: dir,
      env: rowEnv,
      stdin: (n) => JSON.stringify({ session_id: `end-${label}-${n}`, reason: "other" }),
      before: settle((n) => open(dir, `end-${label}-${n}`, rowEnv)),
    },
  ];
}

/**
 * A floor started the way the client starts a hook: through a copy of the real shim (the same sh,
 * the same search for the repository and the binary, the same engine options), whose last line
 * execs the floor instead of majordomus (the start shim's `git status` left out: the floor runs
 * its own). Written into the repository beside the real shims.
 */
export function floorShim(dir: string, shim: string, floor: string, mode: string): string {
  // The start shim's background `git status` goes: the floor runs its own.
  const text = readFileSync(join(dir, shim), "utf8").replace(/^# The briefing needs[\s\S]*?^fi\n/m, "");
  const exec = /^(.*)exec "\$mj" .*$/m;
  if (!exec.test(text)) throw new Error(`${shim}: no exec line to point at the floor`);
  const path = join(dir, ".claude", "hooks", `bench-floor-${mode}`);
  writeFileSync(
    path,
    text.replace(exec, (_line, prefix: string) => `${prefix}exec "${floor}" "$root" ${mode}`),
    { mode: 0o755 },
  );
  return path;
}

/**
 * Another client's hooks as that client runs them: bash, the command its configuration names (for
 * Gemini with $GEMINI_PROJECT_DIR replaced by the shell-quoted folder, as Gemini does), into the same
 * shims and binary as Claude Code's. One row per hook, for the large repository.
 */
type Entry = { hooks?: Array<{ command: string }>; bash?: string; command?: string };
const nested = (e: Entry) => e.hooks![0]!.command;
const CLIENTS = {
  codex: {
    folder: ".codex",
    config: ".codex/hooks.json",
    events: { prompt: "UserPromptSubmit", start: "SessionStart", compact: "PreCompact", end: "SessionEnd" },
    endReason: "other",
    session: "session_id",
    prompt: (n: number) => ({ turn_id: `t-${n}`, prompt: "say ok" }),
    command: nested,
  },
  gemini: {
    folder: ".gemini",
    config: ".gemini/settings.json",
    events: { prompt: "BeforeAgent", start: "SessionStart", compact: "PreCompress", end: "SessionEnd" },
    endReason: "exit",
    session: "session_id",
    prompt: (n: number) => ({ prompt: `<hook_context>briefing</hook_context>\n\nsay ok ${n}` }),
    command: nested,
  },
  // Copilot exports the project folder to its hooks: the bash command names the shim through it.
  copilot: {
    folder: ".github",
    config: ".github/hooks/majordomus.json",
    events: { prompt: "userPromptSubmitted", start: "sessionStart", compact: "preCompact", end: "sessionEnd" },
    endReason: "complete",
    session: "sessionId",
    prompt: () => ({ prompt: "say ok" }),
    command: (e: Entry) => e.bash!,
  },
  // opencode's hooks are our plugin's: it runs each command its hook file names, with the project folder exported.
  opencode: {
    folder: ".opencode",
    config: ".opencode/majordomus/hooks.json",
    events: {
      prompt: "chat.message",
      start: "session.created",
      compact: "experimental.session.compacting",
      end: "session.end",
    },
    endReason: "exit",
    session: "session_id",
    prompt: (n: number) => ({ prompt: "say ok", prompt_id: `msg_${n}` }),
    command: (e: Entry) => e.command!,
  },
} as const;

function clientRows(client: keyof typeof CLIENTS, dir: string): Row[] {
  const c = CLIENTS[client];
  run(dir, BIN, ["capture", "install", "--provider", client]);
  run(dir, "git", ["add", c.folder]);
  run(dir, "git", ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", client]);
  const config = JSON.parse(readFileSync(join(dir, c.config), "utf8")) as { hooks: Record<string, Entry[]> };
  const quoted = `'${dir.replace(/'/g, `'\\''`)}'`;
  const command = (event: string) => [
    "bash",
    "-c",
    c.command(config.hooks[event]![0]!).replaceAll("$GEMINI_PROJECT_DIR", quoted),
  ];
  const hookEnv = { ...env, COPILOT_PROJECT_DIR: dir, OPENCODE_PROJECT_DIR: dir };
  const id = (session: string) => ({ [c.session]: session });
  const start = (session: string) =>
    spawnSync("bash", command(c.events.start).slice(1), {
      cwd: dir,
      input: JSON.stringify({ ...id(session), source: "startup" }),
      env: { ...process.env, ...hookEnv },
    });
  const live = `${client}-live`;
  start(live);
  const settle = (extra?: (n: number) => void) => (n: number) => {
    for (const d of benched) drained(d);
    extra?.(n);
    drained(dir);
  };
  return [
    {
      name: `${client} prompt (large)`,
      cmd: command(c.events.prompt),
      cwd: dir,
      env: hookEnv,
      stdin: (n) => JSON.stringify({ ...id(live), ...c.prompt(n) }),
      before: settle(),
    },
    {
      name: `${client} start, resumed episode (large)`,
      cmd: command(c.events.start),
      cwd: dir,
      env: hookEnv,
      stdin: JSON.stringify({ ...id(live), source: "resume" }),
      before: settle(),
    },
    {
      name: `${client} compact (large)`,
      cmd: command(c.events.compact),
      cwd: dir,
      env: hookEnv,
      stdin: JSON.stringify({ ...id(live), trigger: "auto" }),
      before: settle(),
    },
    {
      name: `${client} end (large)`,
      cmd: command(c.events.end),
      cwd: dir,
      env: hookEnv,
      stdin: (n) => JSON.stringify({ ...id(`${client}-end-${n}`), reason: c.endReason }),
      before: settle((n) => void start(`${client}-end-${n}`)),
    },
  ];
}

function run(cwd: string, cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
}

/** test/bench/floor.ts compiled with the binary's settings (see build.ts). */
export function floorBinary(): string {
  const out = join(BIN, "..", "bench-floor");
  const r = spawnSync(
    process.execPath,
    [
      "build",
      "--compile",
      "--bytecode",
      "--format=esm",
      "--minify",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      join(import.meta.dirname, "floor.ts"),
      "--outfile",
      out,
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`building the floor program failed: ${r.stderr}`);
  return out;
}

export async function benchHooks(noop: string, runs: number): Promise<string[]> {
  const empty = withCapture(emptyRepo());
  // Records as an adopter upgrading has them (written before repository identities), so the baseline binary resolves them as well.
  const large = withSessionsAndPrompts(
    await withRecords(withLedgerLines(withCapture(emptyRepo()), 10_000), 1_000, { legacy: true }),
    1_000,
  );
  // The two sides of the before/after pair, each in its own copy made before any hook ran.
  const baseline = BASELINE ? `${large}-baseline` : undefined;
  const current = BASELINE ? `${large}-current` : undefined;
  for (const copy of [baseline, current]) {
    if (!copy) continue;
    cpSync(large, copy, { recursive: true });
    // A copy's files have new inodes and change times, so git would hash every tracked file on each
    // `git status` (the hooks run it without taking the index lock, so it never refreshes): refresh
    // the copy's index once, or every start and end in it pays for it and looks slower.
    spawnSync("git", ["update-index", "-q", "--refresh"], { cwd: copy });
  }
  const floor = floorBinary();
  const baselineBin = BASELINE ? binaryCopy(join(BASELINE, "majordomus")) : undefined;
  const currentBin = BASELINE ? binaryCopy(BIN) : undefined;
  freshlyWritten(BIN, noop, floor);
  // The floors run with the settings the shims give a hook (the same engine options).
  const floorEnv = engineEnv("start");
  const promptFloorEnv = engineEnv("prompt");
  const rows: Row[] = [
    { name: "no-op binary", cmd: [noop], cwd: empty, before: () => benched.forEach(drained) },
    ...hookRows("empty", empty),
    ...hookRows("large", large),
    {
      name: "floor: payload + one line (large)",
      cmd: [floor, large, "line"],
      cwd: large,
      env: floorEnv,
      stdin: "{}",
      before: () => benched.forEach(drained),
    },
    {
      name: "floor: the prompt hook's I/O (large)",
      cmd: [floor, large, "prompt"],
      cwd: large,
      env: promptFloorEnv,
      stdin: JSON.stringify({ session_id: "bench-live", prompt: "say ok" }),
      before: () => benched.forEach(drained),
    },
    {
      name: "floor: the prompt hook's I/O, a URL and paths (large)",
      cmd: [floor, large, "prompt"],
      cwd: large,
      env: promptFloorEnv,
      stdin: JSON.stringify({ session_id: "bench-live", prompt: URL_PROMPT }),
      before: () => benched.forEach(drained),
    },
    {
      name: "floor: the prompt hook's I/O, a 64 KB pasted log (large)",
      cmd: [floor, large, "prompt"],
      cwd: large,
      env: promptFloorEnv,
      stdin: JSON.stringify({ session_id: "bench-live", prompt: LOG_PROMPT }),
      before: () => benched.forEach(drained),
    },
    {
      name: "floor: the start hook's I/O, git status included (large)",
      cmd: [floor, large, "start"],
      cwd: large,
      env: floorEnv,
      stdin: JSON.stringify({ session_id: "bench-live", source: "resume" }),
      before: () => benched.forEach(drained),
    },
    ...PROMPTS.map(([kind, , prompt]) => ({
      name: `floor through a shim: the prompt hook's I/O${kind} (large)`,
      cmd: [floorShim(large, SHIM.prompt, floor, "prompt")],
      cwd: large,
      env,
      stdin: JSON.stringify({ session_id: "bench-live", prompt }),
      before: () => benched.forEach(drained),
    })),
    {
      name: "floor through a shim: the start hook's I/O (large)",
      cmd: [floorShim(large, SHIM.start, floor, "start")],
      cwd: large,
      env,
      stdin: JSON.stringify({ session_id: "bench-live", source: "resume" }),
      before: () => benched.forEach(drained),
    },
    ...(baseline && current && baselineBin && currentBin
      ? [...pairedRows("current", current, currentBin), ...pairedRows("baseline", baseline, baselineBin)]
      : []),
    ...clientRows("codex", large),
    ...clientRows("gemini", large),
    ...clientRows("copilot", large),
    ...clientRows("opencode", large),
  ];
  const results = measure(rows, runs, 3);
  const base = results[0]!;
  const by = (name: string) => results.find((r) => r.row.name === name)!;
  const ms = (r: Result) => median(r.samples.map((s) => s.ms));
  const rss = (r: Result) => median(r.samples.map((s) => s.rssKiB));
  const out = report(`Hooks through their shims (${runs} runs each, interleaved)`, results, base);
  out.push("");
  for (const hook of ["prompt", "start, new episode", "start, resumed episode", "compact", "end"]) {
    const large = by(`${hook} (large)`);
    const small = by(`${hook} (empty)`);
    out.push(verdict(`${hook}: large repo vs no-op (paired)`, pairedRatio(large, base), 2.0));
    out.push(verdict(`${hook}: large vs empty repo`, ms(large) / ms(small), 1.2));
    out.push(verdict(`${hook}: peak RSS vs no-op`, rss(large) / rss(base), 1.5));
  }
  const floorLine = by("floor: payload + one line (large)");
  const floorPrompt = by("floor: the prompt hook's I/O (large)");
  const floorStart = by("floor: the start hook's I/O, git status included (large)");
  out.push(
    "",
    `The floors (no majordomus code, same build settings), × no-op: payload + one line ${pairedRatio(floorLine, base).toFixed(2)}×; the prompt hook's I/O ${pairedRatio(floorPrompt, base).toFixed(2)}× (RSS ${(rss(floorPrompt) / rss(base)).toFixed(2)}×); the start hook's I/O ${pairedRatio(floorStart, base).toFixed(2)}× (RSS ${(rss(floorStart) / rss(base)).toFixed(2)}×).`,
  );
  const shimPrompt = by("floor through a shim: the prompt hook's I/O (large)");
  const shimStart = by("floor through a shim: the start hook's I/O (large)");
  out.push(
    "",
    "The client waits for these two before the model sees anything; each against the floor doing its I/O, started as the hook is (through a shim, paired):",
  );
  out.push(verdict("prompt (large) vs its floor", pairedRatio(by("prompt (large)"), shimPrompt), 1.3));
  out.push(
    verdict(
      "prompt, a URL and paths (large) vs its floor",
      pairedRatio(
        by("prompt, a URL and paths (large)"),
        by("floor through a shim: the prompt hook's I/O, a URL and paths (large)"),
      ),
      1.5,
    ),
  );
  out.push(
    verdict(
      "prompt, a 64 KB pasted log (large) vs its floor",
      pairedRatio(
        by("prompt, a 64 KB pasted log (large)"),
        by("floor through a shim: the prompt hook's I/O, a 64 KB pasted log (large)"),
      ),
      1.5,
    ),
  );
  out.push(
    verdict(
      'prompt, a 64 KB pasted log vs the short prompt "say ok" (large, paired)',
      pairedRatio(by("prompt, a 64 KB pasted log (large)"), by("prompt (large)")),
      1.15,
    ),
  );
  out.push(
    verdict(
      "prompt, a 900 KB pasted log (large) vs its floor",
      pairedRatio(
        by("prompt, a 900 KB pasted log (large)"),
        by("floor through a shim: the prompt hook's I/O, a 900 KB pasted log (large)"),
      ),
      2.0,
    ),
  );
  out.push(
    verdict(
      "start, resumed episode (large) vs its floor",
      pairedRatio(by("start, resumed episode (large)"), shimStart),
      1.3,
    ),
  );
  out.push(
    verdict("start, new episode (large) vs its floor", pairedRatio(by("start, new episode (large)"), shimStart), 1.3),
  );
  out.push(
    `Against the bare floors (started directly, no shim): prompt ${pairedRatio(by("prompt (large)"), floorPrompt).toFixed(2)}×, start resumed ${pairedRatio(by("start, resumed episode (large)"), floorStart).toFixed(2)}×, start new ${pairedRatio(by("start, new episode (large)"), floorStart).toFixed(2)}×.`,
  );
  if (BASELINE) {
    out.push(
      "",
      `Against the baseline binary ${BASELINE} (each in its own copy of the large repository, same rows, same run, paired; below 1 is faster now):`,
    );
    for (const hook of ["prompt", "start, new episode", "start, resumed episode", "compact", "end"])
      out.push(
        `- ${hook} (large): ${pairedRatio(by(`current ${hook} (large)`), by(`baseline ${hook} (large)`)).toFixed(2)}×`,
      );
  }
  for (const [client, title] of [
    ["codex", "Codex CLI"],
    ["gemini", "Gemini CLI"],
    ["copilot", "GitHub Copilot CLI"],
    ["opencode", "opencode (through its plugin)"],
  ] as const) {
    out.push(
      "",
      `${title}'s hooks, each as the client runs it (bash, the command in its configuration), against Claude Code's shim for the same hook (paired) and the no-op:`,
    );
    for (const hook of ["prompt", "start, resumed episode", "compact", "end"]) {
      const row = by(`${client} ${hook} (large)`);
      out.push(
        `- ${hook}: ${pairedRatio(row, by(`${hook} (large)`)).toFixed(2)}× Claude Code's, ${pairedRatio(row, base).toFixed(2)}× the no-op (peak RSS ${(rss(row) / 1024).toFixed(1)} MiB)`,
      );
    }
  }
  drained(empty);
  drained(large);
  out.push(
    "",
    "Compact and end, from the event to the finished record (the hook, then the work it handed off), median:",
  );
  for (const [label, dir] of [
    ["large", large],
    ["empty", empty],
  ] as const) {
    const compact = eventToRecord(dir, "compact", runs);
    const end = eventToRecord(dir, "end", runs);
    out.push(verdict(`compact until its checkpoint (${label}), ms`, compact, 150));
    out.push(verdict(`end until the episode's closed record (${label}), ms`, end, 150));
  }
  return out;
}
