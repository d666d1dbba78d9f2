/**
 * `npm run bench:growth`: the commands a long-lived repository runs, on the layer of a busy year
 * (200,000 ledger lines; 10,000 handovers, checkpoints, closed session records and prompts; 2,000
 * open episodes that were never closed), each timed whole-process with its peak RSS. Prints
 * medians and verdicts against the targets (memory under 100 MiB, doctor's first run within 1.5× a floor doing its I/O, hooks flat
 * against an empty layer); never asserts. Not part of `npm test` (building the layer takes a while).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { settled } from "../support/capture.ts";
import { floorBinary, floorShim } from "./hooks.ts";
import { emptyRepo, withCapture, withLedgerLines, withRecords, withSessionsAndPrompts } from "./fixtures.ts";
import { freshlyWritten, measure, median, pairedRatio, report, type Result, type Row } from "./measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const STRANDED = Number(process.env.BENCH_OPEN ?? 2_000);

const ROOT = mkdtempSync(join(tmpdir(), "majordomus-growth-"));
process.env.TMPDIR = ROOT;
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));
if (!existsSync(BIN)) throw new Error(`no binary at ${BIN}: run \`bun run build.ts\` first`);

/** `count` open episodes nobody closed (their clients died), cloned from one a real start hook opened. */
function withStrandedEpisodes(dir: string, count: number): string {
  const start = join(dir, ".claude", "hooks", "majordomus-session-start");
  spawnSync(start, [], {
    cwd: dir,
    input: JSON.stringify({ session_id: "growth-template", source: "startup" }),
    env: { ...process.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` },
  });
  const open = join(dir, ".ai", "local", "state", "sessions-open");
  const template = readFileSync(join(open, "growth-template.yaml"), "utf8");
  const id = /^session_id: (.+)$/m.exec(template)![1]!;
  for (let i = 0; i < count; i++) {
    const session = `s-20260601000000-${i.toString(16).padStart(12, "0")}`;
    const text = template
      .replaceAll(id, session)
      .replace(/^provider_session: .+$/m, `provider_session: stranded-${i}`)
      .replace(/^opened_at: .+$/m, `opened_at: "2026-06-01T00:00:00.000Z"`);
    writeFileSync(join(open, `stranded-${i}.yaml`), text, { mode: 0o600 });
  }
  return dir;
}

console.error(
  `preparing: ${LINES} ledger lines, ${RECORDS} of each record, ${STRANDED} open episodes (takes a minute or two) …`,
);
const big = withStrandedEpisodes(
  withSessionsAndPrompts(await withRecords(withLedgerLines(withCapture(emptyRepo()), LINES), RECORDS), RECORDS),
  STRANDED,
);
const empty = withCapture(emptyRepo());
const env = { PATH: `${join(BIN, "..")}:${process.env.PATH}` };
const shim = (dir: string, name: string) => join(dir, ".claude", "hooks", name);
const RESUMED = JSON.stringify({ session_id: "growth-live", source: "resume" });
for (const dir of [big, empty])
  spawnSync(shim(dir, "majordomus-session-start"), [], {
    cwd: dir,
    input: JSON.stringify({ session_id: "growth-live", source: "startup" }),
    env: { ...process.env, ...env },
  });

const NOOP = join(BIN, "..", "noop");
if (!existsSync(NOOP)) throw new Error(`no no-op binary at ${NOOP}: run \`bun run build.ts --noop\` first`);
// doctor reports the stranded episodes (a warning, exit 10): that is its answer, not a failure.
const DOCTOR_EXITS = [0, 10];
// A start hands the recovery of stranded episodes (a few at a time) to a worker: every run waits,
// untimed, until no worker is busy in either repository, so none is timed beside another's work.
const quiet = () => [big, empty].forEach((dir) => settled(dir, 30_000));
// The start hook waits for `git status`, whose cost grows with the repository's tracked files (the
// busy layer's 10,000 closed records are tracked): the floor, which runs the same git status and
// does the hook's other I/O, says how much of a start on each layer is git's.
const floor = floorBinary();
const START_SHIM = ".claude/hooks/majordomus-session-start";
const benchRows: Row[] = [
  { name: "no-op binary", cmd: [NOOP], cwd: big },
  // A first run: nothing remembered of the records or of the ledger.
  {
    name: "doctor (first run)",
    cmd: [BIN, "doctor"],
    cwd: big,
    exits: DOCTOR_EXITS,
    before: () =>
      ["doctor-verdicts.tsv", "doctor-ledger.json"].forEach((f) =>
        rmSync(join(big, ".ai", "local", "cache", f), { force: true }),
      ),
  },
  { name: "doctor (again)", cmd: [BIN, "doctor"], cwd: big, exits: DOCTOR_EXITS },
  { name: "floor: doctor's I/O", cmd: [floor, big, "doctor", BIN], cwd: big },
  { name: "floor: doctor's I/O, records parsed", cmd: [floor, big, "doctor", BIN, "parse"], cwd: big },
  { name: "history --validate", cmd: [BIN, "history", "--validate"], cwd: big },
  { name: "history --limit 20", cmd: [BIN, "history", "--limit", "20"], cwd: big },
  { name: "session list", cmd: [BIN, "session", "list"], cwd: big },
  { name: "session list --all", cmd: [BIN, "session", "list", "--all"], cwd: big },
  { name: "handover --resolve", cmd: [BIN, "handover", "--resolve"], cwd: big },
  { name: "context", cmd: [BIN, "context"], cwd: big },
  {
    name: "start, resumed episode (busy layer)",
    cmd: [shim(big, "majordomus-session-start")],
    cwd: big,
    env,
    stdin: RESUMED,
  },
  {
    name: "start, resumed episode (empty layer)",
    cmd: [shim(empty, "majordomus-session-start")],
    cwd: empty,
    env,
    stdin: RESUMED,
  },
  {
    name: "floor: the start hook's I/O (busy layer)",
    cmd: [floorShim(big, START_SHIM, floor, "start")],
    cwd: big,
    env,
    stdin: RESUMED,
  },
  {
    name: "floor: the start hook's I/O (empty layer)",
    cmd: [floorShim(empty, START_SHIM, floor, "start")],
    cwd: empty,
    env,
    stdin: RESUMED,
  },
  {
    name: "prompt (busy layer)",
    cmd: [shim(big, "majordomus-capture")],
    cwd: big,
    env,
    stdin: (n) => JSON.stringify({ session_id: "growth-live", prompt_id: `g-${n}`, prompt: "say ok" }),
  },
  {
    name: "prompt (empty layer)",
    cmd: [shim(empty, "majordomus-capture")],
    cwd: empty,
    env,
    stdin: (n) => JSON.stringify({ session_id: "growth-live", prompt_id: `g-${n}`, prompt: "say ok" }),
  },
];
const rows: Row[] = benchRows.map((row) => ({ ...row, before: (n: number) => (quiet(), row.before?.(n)) }));
freshlyWritten(BIN, NOOP, floor);
const results = measure(rows, RUNS, 1);
const by = (name: string) => results.find((r) => r.row.name === name)!;
const ms = (r: Result) => median(r.samples.map((s) => s.ms));
const mib = (r: Result) => median(r.samples.map((s) => s.rssKiB)) / 1024;
const line = (ok: boolean, text: string) => `${ok ? "met   " : "MISSED"} ${text}`;

const out = report(`A busy year's layer (${RUNS} runs each, interleaved)`, results, results[0]!);
out.push("");
for (const r of results.slice(1))
  out.push(line(mib(r) < 100, `${r.row.name}: peak RSS ${mib(r).toFixed(1)} MiB (target < 100 MiB)`));
// A time in milliseconds moves with the machine; the floor beside it, doing doctor's I/O, moves with it.
const doctorRatio = pairedRatio(by("doctor (first run)"), by("floor: doctor's I/O"));
out.push(
  line(doctorRatio <= 1.5, `doctor (first run) vs the floor doing its I/O: ${doctorRatio.toFixed(2)}× (target <= 1.5)`),
);
const parsedRatio = pairedRatio(by("doctor (first run)"), by("floor: doctor's I/O, records parsed"));
out.push(`doctor (first run) vs the floor that also parses every record: ${parsedRatio.toFixed(2)}×`);
out.push(
  `doctor (again) vs the I/O floor: ${pairedRatio(by("doctor (again)"), by("floor: doctor's I/O")).toFixed(2)}×`,
);
out.push(
  line(
    pairedRatio(by("start, resumed episode (busy layer)"), by("floor: the start hook's I/O (busy layer)")) <= 1.3,
    `start, resumed episode (busy layer) vs its floor on that layer (the same git status): ${pairedRatio(by("start, resumed episode (busy layer)"), by("floor: the start hook's I/O (busy layer)")).toFixed(2)}× (target <= 1.3); the floor itself, busy vs empty layer: ${(ms(by("floor: the start hook's I/O (busy layer)")) / ms(by("floor: the start hook's I/O (empty layer)"))).toFixed(2)}×`,
  ),
);
for (const hook of ["start, resumed episode", "prompt"]) {
  const ratio = ms(by(`${hook} (busy layer)`)) / ms(by(`${hook} (empty layer)`));
  out.push(line(ratio <= 1.2, `${hook}: busy vs empty layer ${ratio.toFixed(2)}× (target <= 1.2, flat)`));
}
const listed = spawnSync(BIN, ["session", "list", "--all"], {
  cwd: big,
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const paged = spawnSync(BIN, ["session", "list"], { cwd: big, encoding: "utf8" });
out.push(`session list prints ${paged.stdout.length} bytes (a page); --all prints ${listed.stdout.length} bytes`);
console.log(out.join("\n"));
