/**
 * Hook costs: each hook run through its real shim, as Claude Code runs it, beside the no-op binary,
 * on an empty repository and on one with 10k ledger lines, 1k handovers, 1k checkpoints, 1k closed
 * sessions and 1k prompts. Part of `npm run bench`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { settled } from "../support/capture.ts";
import { emptyRepo, withCapture, withLedgerLines, withRecords, withSessionsAndPrompts } from "./fixtures.ts";
import { measure, median, pairedRatio, report, verdict, type Result, type Row } from "./measure.ts";

const SHIM = { prompt: ".claude/hooks/majordomus-capture", start: ".claude/hooks/majordomus-session-start", compact: ".claude/hooks/majordomus-session-compact", end: ".claude/hooks/majordomus-session-end" } as const;
const env = { PATH: `${join(BIN, "..")}:${process.env.PATH}` };

function open(dir: string, session: string): void {
  spawnSync(join(dir, SHIM.start), [], { cwd: dir, input: JSON.stringify({ session_id: session, source: "startup" }), env: { ...process.env, ...env } });
}

/** Wait (untimed) until the work earlier hooks handed to their workers is done, so no run shares the machine with one. */
const drained = (dir: string) => settled(dir, 30_000);

/**
 * How long after its receipt the handed-off work finished, from the ledger's own timestamps: end
 * until `session.closed`, compact until `task.checkpoint`, per client session; median in ms.
 */
function workLatency(dir: string, event: "compact" | "end", done: string): number {
  const received = new Map<string, number>();
  const waits: number[] = [];
  for (const line of readFileSync(join(dir, ".ai", "local", "state", "ledger.jsonl"), "utf8").split("\n")) {
    if (line === "") continue;
    const e = JSON.parse(line) as Record<string, string>;
    const key = e.session ?? "";
    if (e.event === "provider.event.received" && e.provider_event === event) received.set(key, Date.parse(e.ts!));
    else if (e.event === done && received.has(key)) {
      waits.push(Date.parse(e.ts!) - received.get(key)!);
      received.delete(key);
    }
  }
  return median(waits);
}

/** Every repository the rows run in: a run waits until none of them has a worker still busy. */
const benched: string[] = [];

function hookRows(label: string, dir: string): Row[] {
  open(dir, "bench-live");
  benched.push(dir);
  // Each run of the new-episode row opens one; the next run closes it first (untimed), so open
  // episodes do not pile up from run to run.
  let fresh: string | undefined;
  const closeFresh = () => {
    if (fresh) spawnSync(join(dir, SHIM.end), [], { cwd: dir, input: JSON.stringify({ session_id: fresh, reason: "other" }), env: { ...process.env, ...env, MAJORDOMUS_HOOK_WORK: "foreground" } });
    fresh = undefined;
  };
  const settle = (extra?: (n: number) => void) => (n: number) => {
    for (const d of benched) drained(d);
    extra?.(n);
    drained(dir);
  };
  return [
    { name: `prompt (${label})`, cmd: [join(dir, SHIM.prompt)], cwd: dir, env, stdin: (n) => JSON.stringify({ session_id: "bench-live", prompt_id: `p-${label}-${n}`, prompt: "say ok" }), before: settle() },
    { name: `start, new episode (${label})`, cmd: [join(dir, SHIM.start)], cwd: dir, env, stdin: (n) => JSON.stringify({ session_id: (fresh = `fresh-${label}-${n}`), source: "startup" }), before: settle(() => closeFresh()) },
    { name: `start, resumed episode (${label})`, cmd: [join(dir, SHIM.start)], cwd: dir, env, stdin: JSON.stringify({ session_id: "bench-live", source: "resume" }), before: settle() },
    { name: `compact (${label})`, cmd: [join(dir, SHIM.compact)], cwd: dir, env, stdin: JSON.stringify({ session_id: "bench-live", trigger: "auto" }), before: settle() },
    { name: `end (${label})`, cmd: [join(dir, SHIM.end)], cwd: dir, env, stdin: (n) => JSON.stringify({ session_id: `end-${label}-${n}`, reason: "other" }), before: settle((n) => open(dir, `end-${label}-${n}`)) },
  ];
}

/** test/bench/floor.ts compiled with the binary's settings (see build.ts). */
function floorBinary(): string {
  const out = join(BIN, "..", "bench-floor");
  const r = spawnSync(process.execPath, ["build", "--compile", "--bytecode", "--format=esm", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", join(import.meta.dirname, "floor.ts"), "--outfile", out], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`building the floor program failed: ${r.stderr}`);
  return out;
}

export async function benchHooks(noop: string, runs: number): Promise<string[]> {
  const empty = withCapture(emptyRepo());
  const large = withSessionsAndPrompts(await withRecords(withLedgerLines(withCapture(emptyRepo()), 10_000), 1_000), 1_000);
  const floor = floorBinary();
  const rows: Row[] = [
    { name: "no-op binary", cmd: [noop], cwd: empty, before: () => benched.forEach(drained) },
    ...hookRows("empty", empty),
    ...hookRows("large", large),
    { name: "floor: payload + one line (large)", cmd: [floor, large], cwd: large, stdin: "{}", before: () => benched.forEach(drained) },
    { name: "floor: payload + one line + git status (large)", cmd: [floor, large, "--git"], cwd: large, stdin: "{}", before: () => benched.forEach(drained) },
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
  const floorTime = by("floor: payload + one line + git status (large)");
  const floorLine = by("floor: payload + one line (large)");
  out.push("", `The floor (no majordomus code, same build settings): payload + one line ${pairedRatio(floorLine, base).toFixed(2)}× / RSS ${(rss(floorLine) / rss(base)).toFixed(2)}×; with one git status ${pairedRatio(floorTime, base).toFixed(2)}× / RSS ${(rss(floorTime) / rss(base)).toFixed(2)}×.`);
  drained(empty);
  drained(large);
  out.push("", "Handed-off work (not waited for by the client), receipt until done, median from the ledger's timestamps:");
  out.push(`- compact until its checkpoint: ${workLatency(large, "compact", "task.checkpoint").toFixed(0)} ms (large), ${workLatency(empty, "compact", "task.checkpoint").toFixed(0)} ms (empty)`);
  out.push(`- end until the episode's record: ${workLatency(large, "end", "session.closed").toFixed(0)} ms (large), ${workLatency(empty, "end", "session.closed").toFixed(0)} ms (empty)`);
  return out;
}
