/**
 * `npm run bench`: start-up and per-command cost of the binary, side by side with a no-op binary
 * built with the same settings. Medians over >= 30 interleaved runs; ratios; peak RSS.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, PROJECT } from "../support/env.ts";
import { emptyRepo, withLedgerLines } from "./fixtures.ts";
import { measure, median, pairedRatio, report, verdict } from "./measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const NOOP = join(PROJECT, "dist", "noop");

function ensureNoop(): void {
  if (existsSync(NOOP)) return;
  const r = spawnSync(process.execPath, ["run", "build.ts", "--noop"], { cwd: PROJECT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("building the no-op binary failed");
}

ensureNoop();
const big = withLedgerLines(emptyRepo(), 10_000);
const rows = [
  { name: "no-op binary", cmd: [NOOP], cwd: big },
  { name: "majordomus --version", cmd: [BIN, "--version"], cwd: big },
  { name: "history --limit 5 (10,000-line ledger)", cmd: [BIN, "history", "--limit", "5"], cwd: big },
];
const results = measure(rows, RUNS);
const base = results[0]!;
const out = report(`Start-up (${RUNS} runs each, interleaved; bun ${Bun.version})`, results, base);
out.push("");
for (const r of results.slice(1)) {
  out.push(verdict(`${r.row.name} wall vs no-op (paired)`, pairedRatio(r, base), 2.0));
}
out.push(`no-op median ${median(base.samples.map((s) => s.ms)).toFixed(1)} ms`);
console.log(out.join("\n"));
