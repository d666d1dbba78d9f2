/**
 * Hook costs: each hook run through its real shim, as Claude Code runs it, beside the no-op binary,
 * on an empty repository and on one with 10k ledger lines, 1k handovers, 1k checkpoints, 1k closed
 * sessions and 1k prompts. Part of `npm run bench`.
 */
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { emptyRepo, withCapture, withLedgerLines, withRecords, withSessionsAndPrompts } from "./fixtures.ts";
import { measure, median, pairedRatio, report, verdict, type Result, type Row } from "./measure.ts";

const SHIM = { prompt: ".claude/hooks/majordomus-capture", start: ".claude/hooks/majordomus-session-start", compact: ".claude/hooks/majordomus-session-compact", end: ".claude/hooks/majordomus-session-end" } as const;
const env = { PATH: `${join(BIN, "..")}:${process.env.PATH}`, MAJORDOMUS_LOG: "warn" };

function open(dir: string, session: string): void {
  spawnSync(join(dir, SHIM.start), [], { cwd: dir, input: JSON.stringify({ session_id: session, source: "startup" }), env: { ...process.env, ...env } });
}

function hookRows(label: string, dir: string): Row[] {
  open(dir, "bench-live");
  return [
    { name: `prompt (${label})`, cmd: [join(dir, SHIM.prompt)], cwd: dir, env, stdin: (n) => JSON.stringify({ session_id: "bench-live", prompt_id: `p-${label}-${n}`, prompt: "say ok" }) },
    { name: `start with briefing (${label})`, cmd: [join(dir, SHIM.start)], cwd: dir, env, stdin: JSON.stringify({ session_id: "bench-live", source: "resume" }) },
    { name: `compact (${label})`, cmd: [join(dir, SHIM.compact)], cwd: dir, env, stdin: JSON.stringify({ session_id: "bench-live", trigger: "auto" }) },
    { name: `end (${label})`, cmd: [join(dir, SHIM.end)], cwd: dir, env, stdin: (n) => JSON.stringify({ session_id: `end-${label}-${n}`, reason: "other" }), before: (n) => open(dir, `end-${label}-${n}`) },
  ];
}

export async function benchHooks(noop: string, runs: number): Promise<string[]> {
  const empty = withCapture(emptyRepo());
  const large = withSessionsAndPrompts(await withRecords(withLedgerLines(withCapture(emptyRepo()), 10_000), 1_000), 1_000);
  const rows: Row[] = [{ name: "no-op binary", cmd: [noop], cwd: empty }, ...hookRows("empty", empty), ...hookRows("large", large)];
  const results = measure(rows, runs, 3);
  const base = results[0]!;
  const by = (name: string) => results.find((r) => r.row.name === name)!;
  const ms = (r: Result) => median(r.samples.map((s) => s.ms));
  const rss = (r: Result) => median(r.samples.map((s) => s.rssKiB));
  const out = report(`Hooks through their shims (${runs} runs each, interleaved)`, results, base);
  out.push("");
  for (const hook of ["prompt", "start with briefing", "compact", "end"]) {
    const large = by(`${hook} (large)`);
    const small = by(`${hook} (empty)`);
    out.push(verdict(`${hook}: large repo vs no-op (paired)`, pairedRatio(large, base), 2.0));
    out.push(verdict(`${hook}: large vs empty repo`, ms(large) / ms(small), 1.2));
    out.push(verdict(`${hook}: peak RSS vs no-op`, rss(large) / rss(base), 1.5));
  }
  return out;
}
