/**
 * `npm start`: a guided run of majordomus in a scratch git repository, using the compiled binary
 * exactly as an adopter would. Each step says what it shows, runs the command, prints its output.
 * Later features extend the steps table; the scratch repository is left for you to explore.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";

type Step = { say: string; run: string[]; expect?: number; show?: (out: string) => string };

const STEPS: Step[] = [
  { say: "The binary is self-contained: version from package.json, data tree embedded.", run: ["majordomus", "--version"] },
  { say: "A git repository becomes supervised with `init`: the tracked half (.ai/repo) and the private, git-ignored local half (.ai/local).", run: ["majordomus", "init"] },
  { say: "git sees the tracked half and the ignore line, never the local half.", run: ["git", "status", "--short", "--untracked-files=all"] },
  { say: "Every threshold and switch lives in the policy; `policy` validates it against its schema.", run: ["majordomus", "policy"], show: (o) => o.split("\n").slice(0, 8).join("\n") + "\n…" },
  { say: "The ledger records what happened, one JSON line per event.", run: ["majordomus", "history"] },
  { say: "A second `init` refuses (exit 15) rather than overwrite anything…", run: ["majordomus", "init"], expect: 15 },
  { say: "…while `init --extend` restores only what is missing. Here a deleted README comes back.", run: ["sh", "-c", "rm .ai/local/cache/README.md && majordomus init --extend | grep -v '^kept'"] },
  { say: "Bad input is named precisely: a policy with a typo'd key and a wrong type.", run: ["sh", "-c", "sed -i 's/max_body_lines: 40/max_body_lines: forty\\n  max_lines: 1/' .ai/repo/policy.yaml && majordomus policy"], expect: 10 },
  { say: "history --validate checks every ledger line; --json gives machine-readable output.", run: ["majordomus", "history", "--validate"] },
  { say: "The JSON form, one ledger line per entry.", run: ["majordomus", "history", "--json", "--limit", "2"] },
];

function banner(text: string): void {
  console.log(`\n\u2500\u2500 ${text}`);
}

const repo = mkdtempSync(join(tmpdir(), "majordomus-tour-"));
const env = { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH}`, GIT_AUTHOR_NAME: "Tour", GIT_AUTHOR_EMAIL: "tour@example.invalid", GIT_COMMITTER_NAME: "Tour", GIT_COMMITTER_EMAIL: "tour@example.invalid" };
Bun.spawnSync(["git", "init", "-q", "-b", "main"], { cwd: repo, env });
writeFileSync(join(repo, "README.md"), "# scratch project\n");
Bun.spawnSync(["git", "add", "."], { cwd: repo, env });
Bun.spawnSync(["git", "commit", "-q", "-m", "scratch project"], { cwd: repo, env });

console.log(`majordomus tour — scratch repository: ${repo}`);
let problems = 0;
for (const [i, step] of STEPS.entries()) {
  banner(`${i + 1}. ${step.say}`);
  console.log(`$ ${step.run[0] === "sh" ? step.run[2] : step.run.join(" ")}`);
  const run = Bun.spawnSync(step.run, { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
  const out = run.stdout.toString() + run.stderr.toString();
  console.log((step.show ? step.show(out) : out).trimEnd());
  const want = step.expect ?? 0;
  console.log(`(exit ${run.exitCode})`);
  if (run.exitCode !== want) {
    problems++;
    console.log(`!! expected exit ${want}`);
  }
}
banner(problems === 0 ? `Done. Explore ${repo}, or run \`npm test\` to see everything proven.` : `${problems} step(s) did not behave as described.`);
process.exit(problems === 0 ? 0 : 1);
