/**
 * `npm run bench:claims`: what checking a handover's citations costs the start hook. A handover
 * citing ten files and a line range is written through the real binary; the work then goes on in
 * five ways (nothing changed; HEAD moved, the cited files untouched; cited files edited, a line in
 * ten; rewritten whole; rewritten and committed). Each case runs the start hook through Claude Code's shim twice over, interleaved:
 * in the repository as it is, and in a copy whose handover carries no `claims` (the same briefing,
 * no check). The figure is the paired ratio of the two; the README's target is <= 1.1x.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";
import { settled } from "../support/capture.ts";
import { emptyRepo, withCapture } from "./fixtures.ts";
import { freshlyWritten, measure, median, pairedRatio, verdict, type Row } from "./measure.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const ROOT = mkdtempSync(join(tmpdir(), "majordomus-bench-claims-"));
process.env.TMPDIR = ROOT;
process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));

const START = ".claude/hooks/majordomus-session-start";
const END = ".claude/hooks/majordomus-session-end";
const env = { ...process.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` };
const FILES = Array.from({ length: 10 }, (_, i) => `src/part${i}.ts`);

function run(cwd: string, cmd: string, args: string[], input?: string, extra: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, { cwd, input, encoding: "utf8", env: { ...env, ...extra } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const git = (dir: string, ...args: string[]) => run(dir, "git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args]);
const hook = (dir: string, shim: string, payload: object) =>
  run(dir, join(dir, shim), [], JSON.stringify(payload), { MAJORDOMUS_HOOK_WORK: "foreground" });
const body = (word: string) => Array.from({ length: 120 }, (_, i) => `export const ${word}${i} = ${i};`).join("\n");

/** A repository whose last session handed over citing ten files and a range, then ended; a live session to resume. */
function authored(): string {
  const dir = withCapture(emptyRepo());
  mkdirSync(join(dir, "src"));
  for (const f of FILES) writeFileSync(join(dir, f), `${body("v")}\n`);
  git(dir, "add", "src");
  git(dir, "commit", "-q", "-m", "parts");
  hook(dir, START, { session_id: "author", source: "startup" });
  const next = `Go on from \`src/part0.ts:40-58\`, then ${FILES.slice(1)
    .map((f) => `\`${f}\``)
    .join(", ")}; run \`npm test\` after.`;
  run(dir, BIN, ["handover"], `# Objective\nThe parts.\n\n# Current State\nHalf done.\n\n# Next Action\n${next}\n`, {
    CLAUDE_CODE_SESSION_ID: "author",
  });
  hook(dir, END, { session_id: "author", reason: "other" });
  hook(dir, START, { session_id: "reader", source: "startup" });
  settled(dir, 30_000);
  return dir;
}

/** The handover as written, without its `claims` key: what the same briefing costs with nothing to check. */
function withoutClaims(dir: string): string {
  const copy = `${dir}-plain`;
  cpSync(dir, copy, { recursive: true });
  const folder = join(copy, ".ai", "local", "state", "handovers");
  for (const name of readdirSync(folder).filter((f) => f.endsWith(".md") && f !== "README.md")) {
    const text = readFileSync(join(folder, name), "utf8");
    writeFileSync(join(folder, name), text.replace(/^claims:\n(?: {2}- .*\n)+/m, ""));
  }
  return copy;
}

const CASES: Array<{ name: string; then: (dir: string) => void }> = [
  { name: "nothing changed", then: () => {} },
  {
    name: "HEAD moved, cited files untouched",
    then: (dir) => {
      writeFileSync(join(dir, "other.txt"), "other\n");
      git(dir, "add", "other.txt");
      git(dir, "commit", "-q", "-m", "other");
    },
  },
  {
    name: "cited files edited (a line in ten)",
    then: (dir) => {
      for (const f of FILES.slice(0, 4))
        writeFileSync(join(dir, f), `${body("v").replace(/^(.*0;)$/gm, "$1 // edited")}\n`);
    },
  },
  {
    name: "cited files rewritten whole",
    then: (dir) => {
      for (const f of FILES.slice(0, 4)) writeFileSync(join(dir, f), `${body("w")}\n`);
    },
  },
  {
    name: "rewritten and committed since",
    then: (dir) => {
      for (const f of FILES.slice(0, 4)) writeFileSync(join(dir, f), `${body("w")}\n`);
      git(dir, "commit", "-q", "-am", "edits");
    },
  },
];

const rows: Row[] = [];
for (const c of CASES) {
  const dir = authored();
  c.then(dir);
  const plain = withoutClaims(dir);
  const briefing = (d: string) => hook(d, START, { session_id: "reader", source: "resume" });
  if (!briefing(dir).includes("What it cites, checked against the tree now"))
    throw new Error(`${c.name}: the briefing carries no citations`);
  if (briefing(plain).includes("What it cites")) throw new Error(`${c.name}: the copy still carries citations`);
  for (const [which, d] of [
    ["checked", dir],
    ["no claims", plain],
  ] as const)
    rows.push({
      name: `${c.name} (${which})`,
      cmd: [join(d, START)],
      cwd: d,
      env,
      stdin: JSON.stringify({ session_id: "reader", source: "resume" }),
      before: () => settled(d, 30_000),
    });
}

freshlyWritten(BIN);
const results = measure(rows, RUNS);
const lines = [
  `## The claims check on the start hook (${RUNS} runs each, interleaved)`,
  "",
  "| case | with claims ms | without ms | paired ratio |",
  "|---|---:|---:|---:|",
];
const verdicts: string[] = [];
for (let i = 0; i < results.length; i += 2) {
  const [checked, plain] = [results[i]!, results[i + 1]!];
  const ms = (r: typeof checked) => median(r.samples.map((s) => s.ms)).toFixed(1);
  const ratio = pairedRatio(checked, plain);
  const name = CASES[i / 2]!.name;
  lines.push(`| ${name} | ${ms(checked)} | ${ms(plain)} | ${ratio.toFixed(2)} |`);
  verdicts.push(verdict(`claims check, ${name}`, ratio, 1.1));
}
console.log([...lines, "", ...verdicts].join("\n"));
