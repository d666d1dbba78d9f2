/**
 * `npm run bench:end-reads`: what the end hook reads, counted by strace on one fixed scenario (a
 * layer, a task, a start, two prompts, an authored checkpoint, an authored handover citing two
 * files, two edited files, then the end with its work in the foreground): the files of the checkout
 * (not .git) it opens to read and how often, the ledger's read passes, and the git processes it
 * starts. Prints numbers; never asserts. Needs strace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN } from "../support/env.ts";

const root = mkdtempSync(join(tmpdir(), "majordomus-end-reads-"));
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const repo = join(root, "repo");
const env = { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH}`, MAJORDOMUS_HOOK_WORK: "foreground" };
const run = (cmd: string, args: string[], input?: string, extra: Record<string, string> = {}) => {
  const r = spawnSync(cmd, args, { cwd: repo, input, encoding: "utf8", env: { ...env, ...extra } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
  return r;
};

spawnSync("git", ["init", "-q", repo]);
for (const [k, v] of [
  ["user.email", "bench@example.com"],
  ["user.name", "bench"],
])
  run("git", ["config", k!, v!]);
writeFileSync(join(repo, "a.ts"), "export const a = 1;\n");
run("git", ["add", "."]);
run("git", ["commit", "-qm", "init"]);
run(BIN, ["init"]);
run(BIN, ["capture", "install"]);
run("git", ["add", "-A"]);
run("git", ["commit", "-qm", "wire"]);
const hook = (name: string, payload: object) =>
  run(join(repo, ".claude", "hooks", name), [], JSON.stringify(payload), { CLAUDE_CODE_SESSION_ID: "bench" });
hook("majordomus-session-start", { session_id: "bench", source: "startup" });
run(BIN, ["start", "wire the loader", "--scope", "src"], undefined, { CLAUDE_CODE_SESSION_ID: "bench" });
hook("majordomus-capture", { session_id: "bench", prompt: "wire the loader into a.ts" });
hook("majordomus-capture", { session_id: "bench", prompt: "and test it" });
run(BIN, ["checkpoint"], "# Progress\nThe loader reads a.ts.\n", { CLAUDE_CODE_SESSION_ID: "bench" });
run(
  BIN,
  ["handover"],
  "# Objective\nA loader.\n\n# Current State\n`a.ts` reads it; `b.ts` is next.\n\n# Next Action\nEdit `b.ts`.\n",
  { CLAUDE_CODE_SESSION_ID: "bench" },
);
writeFileSync(join(repo, "a.ts"), "export const a = 2;\n");
writeFileSync(join(repo, "b.ts"), "export const b = 1;\n");

const trace = join(root, "end.strace");
const shim = join(repo, ".claude", "hooks", "majordomus-session-end");
const traced = spawnSync("strace", ["-f", "-qq", "-e", "trace=openat,execve", "-o", trace, shim], {
  cwd: repo,
  input: JSON.stringify({ session_id: "bench", reason: "other" }),
  env,
});
if (traced.error || traced.status !== 0) throw new Error(`strace: ${traced.error?.message ?? traced.status}`);

const lines = readFileSync(trace, "utf8").split("\n");
const reads = new Map<string, number>();
for (const line of lines) {
  const m = /openat\(AT_FDCWD, "([^"]+)", (O_RDONLY[^)]*)\)\s*=\s*\d+/.exec(line);
  if (!m || m[2]!.includes("O_DIRECTORY") || !m[1]!.startsWith(`${repo}/`) || m[1]!.startsWith(join(repo, ".git/")))
    continue;
  const rel = m[1]!.slice(repo.length + 1);
  reads.set(rel, (reads.get(rel) ?? 0) + 1);
}
const gits = lines.filter((l) => /execve\("[^"]*\/git"/.test(l)).map((l) => /\["[^"]*", "([^"]+)"/.exec(l)?.[1]);
const opens = [...reads.values()].reduce((a, b) => a + b, 0);
console.log(`The end hook on the fixed scenario (strace; files of the checkout, not .git, opened to read):`);
for (const [file, n] of [...reads].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(2)}  ${file}`);
console.log(
  `${opens} read-opens of ${reads.size} files, ${opens - reads.size} re-reads; the ledger read ${reads.get(".ai/local/state/ledger.jsonl") ?? 0} time(s); ${gits.length} git process(es): ${gits.join(", ")}`,
);
