/**
 * `npm run bench:uptake`: what measuring uptake costs the end hook, at every transcript size. A
 * session is opened through Claude Code's start shim, naming a transcript of the size in the row,
 * and closed through its end shim (timed). Two checkouts, run interleaved: one whose last handover
 * is authored (the start hands its Next Action, and the end reads the transcript for uptake), and
 * one whose handover is derived (the same end, delivery read too, no uptake). The transcript's
 * named file is never edited, so uptake reads all of it (up to its 32 MB bound): the worst case.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { settled } from "../support/capture.ts";
import { emptyRepo, withCapture } from "./fixtures.ts";
import { measure, median, pairedRatio } from "./measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ROOT = mkdtempSync(join(tmpdir(), "majordomus-bench-uptake-"));
process.env.TMPDIR = ROOT;
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));

const START = ".claude/hooks/majordomus-session-start";
const END = ".claude/hooks/majordomus-session-end";
const env = { ...process.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` };
const MB = [0.1, 1, 8, 32, 128];

function run(cwd: string, cmd: string, args: string[], input?: string, extra: Record<string, string> = {}): void {
  const r = spawnSync(cmd, args, { cwd, input, encoding: "utf8", env: { ...env, ...extra } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
}

/** A Claude Code transcript of about `mb` megabytes: turns of a read, a command and prose, none editing src/ini.ts. */
function transcript(mb: number): string {
  const file = join(ROOT, `transcript-${mb}.jsonl`);
  const rows: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mb * 1024 * 1024; i++) {
    const turn = [
      { type: "user", message: { role: "user", content: `step ${i}` } },
      {
        type: "assistant",
        message: {
          id: `msg_${i}`,
          content: [
            {
              type: "tool_use",
              id: `t${i}`,
              name: i % 2 ? "Read" : "Bash",
              input: { file_path: "/x/a.ts", command: "ls" },
            },
          ],
          usage: { output_tokens: 40 },
        },
      },
      {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "ok" }] },
      },
      { type: "assistant", message: { id: `msg_${i}b`, content: [{ type: "text", text: "x".repeat(2000) }] } },
    ].map((r) => JSON.stringify(r));
    rows.push(...turn);
    bytes += turn.reduce((n, r) => n + r.length + 1, 0);
  }
  writeFileSync(file, `${rows.join("\n")}\n`);
  return file;
}

function checkout(how: "authored" | "derived"): string {
  const dir = withCapture(emptyRepo());
  const next = "Wire the tokenizer into src/ini.ts, then run `git status --short`.";
  if (how === "authored")
    run(dir, BIN, ["handover"], `# Objective\nA parser.\n\n# Current State\nHalf.\n\n# Next Action\n${next}\n`);
  else run(dir, BIN, ["handover", "--derive"]);
  return dir;
}

const dirs = { authored: checkout("authored"), derived: checkout("derived") };
const rows = MB.flatMap((mb) => {
  const path = transcript(mb);
  return (["authored", "derived"] as const).map((how) => ({
    name: `end, ${mb} MB transcript (${how === "authored" ? "uptake measured" : "no uptake"})`,
    cmd: [join(dirs[how], END)],
    cwd: dirs[how],
    env: { PATH: env.PATH! },
    stdin: (n: number) => JSON.stringify({ session_id: `u-${mb}-${n}`, reason: "other" }),
    before: (n: number) => {
      settled(dirs[how], 30_000);
      run(
        dirs[how],
        join(dirs[how], START),
        [],
        JSON.stringify({ session_id: `u-${mb}-${n}`, source: "startup", transcript_path: path }),
      );
      settled(dirs[how], 30_000);
    },
  }));
});

const results = measure(rows, RUNS, 2);
// The rows measured what they say: the authored checkout's records carry uptake, the derived one's none.
const records = (dir: string) =>
  spawnSync("grep", ["-rlc", "^uptake:", join(dir, ".ai/repo/sessions")]).stdout.toString();
if (records(dirs.authored) === "" || records(dirs.derived) !== "")
  throw new Error("the authored checkout's records lack uptake, or the derived one's carry it");
console.log("| transcript | end, uptake measured (ms) | end, no uptake (ms) | paired ratio |");
console.log("|---:|---:|---:|---:|");
for (let i = 0; i < results.length; i += 2) {
  const [withUptake, without] = [results[i]!, results[i + 1]!];
  const ms = (r: typeof withUptake) => median(r.samples.map((s) => s.ms)).toFixed(1);
  console.log(
    `| ${MB[i / 2]} MB | ${ms(withUptake)} | ${ms(without)} | ${pairedRatio(withUptake, without).toFixed(2)} |`,
  );
}
