/**
 * Process-level benchmarking: run each command many times, interleaved round by round so that
 * drift in machine load hits every row alike, and report medians, paired ratios and peak RSS.
 * Prints numbers; never asserts (timings are not tests).
 */
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Row = {
  name: string;
  cmd: string[];
  cwd: string;
  /** Fixed input, or a fresh one per run (e.g. a new prompt id each time). */
  stdin?: string | ((run: number) => string);
  env?: Record<string, string>;
  /** Exit codes that count as a run (default: 0 only); e.g. a `doctor` that reports a warning. */
  exits?: number[];
  /** Untimed preparation before each run (e.g. opening the episode an end event will close). */
  before?: (run: number) => void;
};
export type Sample = { ms: number; rssKiB: number; exit: number | null };
export type Result = { row: Row; samples: Sample[] };

let counter = 0;

function spawn(row: Row, cmd: string[], run: number) {
  const input = typeof row.stdin === "function" ? row.stdin(run) : row.stdin;
  return Bun.spawnSync(cmd, {
    cwd: row.cwd,
    env: { ...process.env, ...row.env },
    stdin: input === undefined ? "ignore" : Buffer.from(input),
    stdout: "ignore",
    stderr: "ignore",
  });
}

const GNU_TIME = "/usr/bin/time";
const HAS_GNU_TIME = existsSync(GNU_TIME);
const RSS_FILE = join(tmpdir(), `majordomus-bench-rss-${process.pid}`);
process.on("exit", () => rmSync(RSS_FILE, { force: true }));

/**
 * Wall time from a direct spawn. Peak RSS from a second run under GNU time: Linux counts the
 * memory a child had before exec (here: a copy of this large bun process) into its ru_maxrss,
 * so only a small intermediate process that forks reports the command's own peak.
 */
function once(row: Row): Sample {
  const run = counter++;
  row.before?.(run);
  const started = performance.now();
  const timed = spawn(row, row.cmd, run);
  const ms = performance.now() - started;
  let rssKiB = Number.NaN;
  if (HAS_GNU_TIME) {
    const again = counter++;
    row.before?.(again);
    spawn(row, [GNU_TIME, "-f", "%M", "-o", RSS_FILE, ...row.cmd], again);
    rssKiB = Number.parseInt(readFileSync(RSS_FILE, "utf8").trim().split("\n").pop() ?? "", 10);
  }
  return { ms, rssKiB, exit: timed.exitCode };
}

/**
 * Write each program a benchmark compares anew, in place (the same bytes, a new file), so all of
 * them are as freshly written as each other. How long ago an executable was written shows in how
 * it runs: measured here, the same 116 MB binary rewritten ran the prompt hook in 0.87x the time
 * of its copy written an hour earlier (paired, 60 runs), its pages mapped in larger pieces (fewer
 * page faults). The no-op and the floor are built by every benchmark run and the binary only when
 * its sources changed, which favoured them; now none is favoured.
 */
export function freshlyWritten(...paths: string[]): void {
  for (const path of paths) {
    const temp = `${path}.rewrite`;
    writeFileSync(temp, readFileSync(path));
    chmodSync(temp, statSync(path).mode & 0o777);
    renameSync(temp, path);
  }
}

export function measure(rows: Row[], runs: number, warmup = 5): Result[] {
  const results = rows.map((row) => ({ row, samples: [] as Sample[] }));
  for (let round = 0; round < warmup + runs; round++) {
    for (const result of results) {
      const sample = once(result.row);
      if (!(result.row.exits ?? [0]).includes(sample.exit ?? -1))
        throw new Error(`${result.row.name}: exit ${sample.exit} (${result.row.cmd.join(" ")})`);
      if (round >= warmup) result.samples.push(sample);
    }
  }
  return results;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median of per-round ratios against the baseline row: robust to slow drift in load. */
export function pairedRatio(result: Result, base: Result): number {
  return median(result.samples.map((s, i) => s.ms / base.samples[i]!.ms));
}

export type Target = { name: string; limit: number; of: "base-ms" | "base-rss" | string };

export function report(title: string, results: Result[], base: Result): string[] {
  const lines = [
    `## ${title}`,
    "",
    "| command | median ms | min ms | × baseline (median) | × baseline (paired) | peak RSS MiB | × baseline RSS |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  const baseMs = median(base.samples.map((s) => s.ms));
  const baseRss = median(base.samples.map((s) => s.rssKiB));
  for (const r of results) {
    const ms = median(r.samples.map((s) => s.ms));
    const rss = median(r.samples.map((s) => s.rssKiB));
    const min = Math.min(...r.samples.map((s) => s.ms));
    lines.push(
      `| ${r.row.name} | ${ms.toFixed(1)} | ${min.toFixed(1)} | ${(ms / baseMs).toFixed(2)} | ${pairedRatio(r, base).toFixed(2)} | ${(rss / 1024).toFixed(1)} | ${(rss / baseRss).toFixed(2)} |`,
    );
  }
  return lines;
}

/** One line per target: the measured ratio, the limit, and whether it was met. */
export function verdict(label: string, ratio: number, limit: number): string {
  return `${ratio <= limit ? "met   " : "MISSED"} ${label}: ${ratio.toFixed(2)} (target <= ${limit})`;
}
