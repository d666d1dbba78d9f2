/**
 * `npm test`: build the binary if it is stale, run `bun test`, and end with one line
 * `N passed, N failed` computed from the runner's own JUnit report (CI reads that line).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT } from "./support/env.ts";

const build = Bun.spawnSync([process.execPath, "run", "build.ts", "--if-stale"], {
  cwd: PROJECT,
  stdout: "inherit",
  stderr: "inherit",
});
if (build.exitCode !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

/**
 * Everything this run makes goes into a temp folder of its own (the tests' TMPDIR), so what is left afterwards is
 * this run's alone: another program's folders in the system's temp folder, or another run's, are never counted.
 */
const runDir = mkdtempSync(join(tmpdir(), "majordomus-run-"));
const tests = join(runDir, "tmp");
mkdirSync(tests);
const dir = mkdtempSync(join(runDir, "junit-"));
const report = join(dir, "junit.xml");
// A per-test limit that only a hang reaches: a verdict never depends on how fast the machine is (a 2-core machine at
// load 10 runs a test several times slower); the tests that run clients bound each run themselves.
const child = Bun.spawn(
  [
    process.execPath,
    "test",
    "--timeout=300000",
    "--reporter=junit",
    `--reporter-outfile=${report}`,
    ...process.argv.slice(2),
  ],
  {
    cwd: PROJECT,
    stdin: "ignore",
    stdout: "inherit",
    stderr: "pipe",
    env: { ...process.env, TMPDIR: tests },
  },
);

/** bun test's result lines, each led by the running count so far: a long run says where it is. */
const tally = { pass: 0, fail: 0, skip: 0 };
const seen = new Set<string>();
const RESULT = /^(?:\x1b\[[0-9;]*m)*\((pass|fail|skip|todo)\)/;
async function relay(stream: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  const emit = (line: string) => {
    const kind = RESULT.exec(line)?.[1] as keyof typeof tally | "todo" | undefined;
    // bun repeats each failed and skipped line in its closing summary: those are not counted again.
    if (kind === undefined || seen.has(line)) return void process.stderr.write(`${line}\n`);
    seen.add(line);
    tally[kind === "todo" ? "skip" : kind]++;
    process.stderr.write(
      `[${tally.pass} passed, ${tally.fail} failed${tally.skip ? `, ${tally.skip} skipped` : ""}] ${line}\n`,
    );
  };
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) emit(line);
  }
  if (pending) emit(pending);
}
await relay(child.stderr);
const run = { exitCode: await child.exited };

function count(xml: string, attr: string): number {
  const match = new RegExp(`<testsuites[^>]*\\s${attr}="(\\d+)"`).exec(xml);
  return match ? Number(match[1]) : 0;
}

const xml = existsSync(report) ? readFileSync(report, "utf8") : "";

/** The test cases the report marks `tag` (failure or skipped), as "file > name". */
function cases(tag: "failure" | "skipped"): string[] {
  const out: string[] = [];
  for (const m of xml.matchAll(/<testcase\s([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    if (!m[2]?.includes(`<${tag}`)) continue;
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(m[1]!)?.[1] ?? "";
    out.push(
      `${attr("file") || attr("classname")} > ${attr("file") ? `${attr("classname")} > ` : ""}${attr("name")}`
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, "&")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&apos;/g, "'"),
    );
  }
  return out;
}
const failures = cases("failure");
const skips = cases("skipped");
if (skips.length > 0) {
  // Skipped tests say why in their names ("(needs …)"); the real-client suites are switched off
  // unless asked for. One line per file: how many, and why. CI runs them all.
  const byFile = new Map<string, { n: number; why: Set<string> }>();
  for (const c of skips) {
    const file = c.slice(0, c.indexOf(" > "));
    const entry = byFile.get(file) ?? { n: 0, why: new Set<string>() };
    entry.n++;
    const needs = /\((needs [^)]*)\)/.exec(c)?.[1];
    entry.why.add(
      needs ??
        (file.startsWith("test/clients/")
          ? "the real clients: `npm run test:clients`, or MAJORDOMUS_CLIENT_TESTS=1"
          : "no reason given"),
    );
    byFile.set(file, entry);
  }
  console.log(`\nskipped: ${skips.length} test(s) in ${byFile.size} file(s); CI runs every one`);
  for (const [file, { n, why }] of byFile) console.log(`  - ${file}: ${n}, ${[...why].join("; ")}`);
}
if (failures.length > 0) {
  console.log(`\nfailed (${failures.length}):`);
  for (const c of failures) console.log(`  - ${c}`);
}
rmSync(dir, { recursive: true, force: true });
const total = count(xml, "tests");
const skipped = count(xml, "skipped");
let failed = count(xml, "failures");
// A file that cannot even load fails the run without a failing test case; count it as one.
if (run.exitCode !== 0 && failed === 0) failed = 1;
// Tests clean up after themselves: anything left in this run's temp folder fails the run.
const left = readdirSync(tests);
if (left.length > 0) {
  console.log(
    `the tests left ${left.length} file(s) or folder(s) in their temp folder: ${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`,
  );
}
rmSync(runDir, { recursive: true, force: true });
const leaked = left.length > 0 ? 1 : 0;
console.log(`${total - failed - skipped} passed, ${failed + leaked} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(run.exitCode === 0 && failed + leaked === 0 ? 0 : 1);
