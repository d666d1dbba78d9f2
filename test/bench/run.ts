/**
 * `npm run bench`: start-up and per-command cost of the binary, side by side with a no-op binary
 * built with the same settings. Medians over >= 30 interleaved runs; ratios; peak RSS.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, PROJECT } from "../support/env.ts";
import { emptyRepo, withLedgerLines, withRecords } from "./fixtures.ts";
import { freshlyWritten, measure, median, pairedRatio, report, verdict, type Result } from "./measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 40);

// Every repository the benchmark builds goes under one folder, removed when it ends.
const ROOT = mkdtempSync(join(tmpdir(), "majordomus-bench-"));
process.env.TMPDIR = ROOT;
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));
const NOOP = join(PROJECT, "dist", "noop");

if (!existsSync(NOOP)) {
  const r = spawnSync(process.execPath, ["run", "build.ts", "--noop"], { cwd: PROJECT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("building the no-op binary failed");
}

freshlyWritten(BIN, NOOP);
console.error("preparing: a repository with 10,000 ledger lines, 1,000 handovers and 1,000 checkpoints …");
const big = await withRecords(withLedgerLines(emptyRepo(), 10_000), 1_000);
const small = await withRecords(emptyRepo(), 1);

const rows = [
  { name: "no-op binary", cmd: [NOOP], cwd: big },
  { name: "majordomus --version", cmd: [BIN, "--version"], cwd: big },
  { name: "history --limit 5 (10k-line ledger)", cmd: [BIN, "history", "--limit", "5"], cwd: big },
  { name: "handover --resolve (1 handover)", cmd: [BIN, "handover", "--resolve"], cwd: small },
  {
    name: "handover --resolve (1k handovers, 1k checkpoints, 10k ledger)",
    cmd: [BIN, "handover", "--resolve"],
    cwd: big,
  },
  { name: "context (1 record each)", cmd: [BIN, "context"], cwd: small },
  { name: "context (1k handovers, 1k checkpoints, 10k ledger)", cmd: [BIN, "context"], cwd: big },
];
const results = measure(rows, RUNS);
const by = (name: string) => results.find((r) => r.row.name.startsWith(name))!;
const ms = (r: Result) => median(r.samples.map((s) => s.ms));
const base = results[0]!;

const out = report(`Start-up and commands (${RUNS} runs each, interleaved; bun ${Bun.version})`, results, base);
out.push("");
out.push(verdict("--version vs no-op (paired)", pairedRatio(by("majordomus --version"), base), 2.0));
out.push(verdict("history --limit 5 vs no-op (paired)", pairedRatio(by("history"), base), 2.0));
out.push(
  verdict("handover --resolve, large repo, vs no-op (paired)", pairedRatio(by("handover --resolve (1k"), base), 2.5),
);
out.push(
  verdict(
    "handover --resolve, large vs small repo (does not grow with history)",
    ms(by("handover --resolve (1k")) / ms(by("handover --resolve (1 ")),
    1.15,
  ),
);
out.push(
  `${ms(by("context (1k")) < 100 ? "met   " : "MISSED"} context, large repo: ${ms(by("context (1k")).toFixed(1)} ms (target < 100 ms)`,
);
out.push(`no-op median ${ms(base).toFixed(1)} ms`);
console.log(out.join("\n"));

if (process.env.BENCH_HOOKS !== "0") {
  console.error("preparing: capture-installed repositories for the hook benchmark …");
  const { benchHooks } = await import("./hooks.ts");
  console.log(`\n${(await benchHooks(NOOP, Number(process.env.BENCH_HOOK_RUNS ?? 30))).join("\n")}`);
}
