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

/** Wait, in the shell, until the work the hooks handed off is done (their tickets are gone). */
const SETTLE = "while ls .ai/local/state/hook-work/*.work >/dev/null 2>&1; do sleep 0.05; done";

const STEPS: Step[] = [
  { say: "The binary is self-contained: version from package.json, data tree embedded.", run: ["majordomus", "--version"] },
  { say: "A git repository becomes supervised with `init`: the tracked half (.ai/repo) and the private, git-ignored local half (.ai/local).", run: ["majordomus", "init"] },
  { say: "git sees the tracked half and the ignore line, never the local half.", run: ["git", "status", "--short", "--untracked-files=all"] },
  { say: "Every threshold and switch lives in the policy; `policy` validates it against its schema.", run: ["majordomus", "policy"], show: (o) => o.split("\n").slice(0, 8).join("\n") + "\n…" },
  { say: "The ledger records what happened, one JSON line per event.", run: ["majordomus", "history"] },
  { say: "A second `init` refuses (exit 15) rather than overwrite anything…", run: ["majordomus", "init"], expect: 15 },
  { say: "…while `init --extend` restores only what is missing. Workspace a deleted README comes back.", run: ["sh", "-c", "rm .ai/local/cache/README.md && majordomus init --extend | grep -v '^kept'"] },
  { say: "Bad input is named precisely: a policy with a typo'd key and a wrong type.", run: ["sh", "-c", "sed -i 's/max_body_lines: 40/max_body_lines: forty\\n  max_lines: 1/' .ai/repo/policy.yaml && majordomus policy"], expect: 10 },
  { say: "history --validate checks every ledger line; --json gives machine-readable output.", run: ["majordomus", "history", "--validate"] },
  { say: "(Put the policy back the way init wrote it, and commit the layer as an adopter would.)", run: ["sh", "-c", "git checkout -q -- .ai/repo/policy.yaml 2>/dev/null || sed -i 's/max_body_lines: forty/max_body_lines: 40/; /max_lines: 1/d' .ai/repo/policy.yaml; git add .ai .gitignore && git commit -qm 'Add the majordomus layer' && git log --oneline | head -1"] },
  { say: "A task gives the work an objective and a scope (optional: nothing below requires one).", run: ["majordomus", "start", "make the greeting configurable", "--scope", "src"] },
  { say: "Work happens; a checkpoint records progress in a few lines (over checkpoint.max_body_lines is refused, never cut).", run: ["sh", "-c", "mkdir -p src && echo 'export const greeting = \"hi\";' > src/greeting.ts && git add src && git commit -qm 'greeting module' && echo 'greeting module exists; config loading not started' | majordomus checkpoint"] },
  { say: "An open question is a blocker: it refuses finishing as completed until answered.", run: ["majordomus", "question", "add", "Should the greeting come from an env variable or the config file?"] },
  { say: "A decision is kept with its reason, its task and its commit.", run: ["majordomus", "decision", "Greeting lives in src/greeting.ts", "--why", "one place to change it"] },
  { say: "The agent (or you) hands over: the policy's required sections, checked; --close marks the task handed over.", run: ["sh", "-c", "printf '# Objective\\nMake the greeting configurable.\\n\\n# Current State\\nThe module exists; nothing reads config yet.\\n\\n# Next Action\\nAnswer the open question, then add the config loader in src/config.ts.\\n' | majordomus handover --close"] },
  { say: "A handover missing a section is refused (exit 10), and says which.", run: ["sh", "-c", "printf '# Objective\\nx\\n' | majordomus handover"], expect: 10 },
  { say: "Git moves on: another commit lands after the handover was written.", run: ["sh", "-c", "echo '// configurable soon' >> src/greeting.ts && git commit -qam 'note' && git log --oneline | head -1"] },
  { say: "The next session resolves the handover: same worktree and branch, labelled against git (advanced) and by age (fresh).", run: ["majordomus", "handover", "--resolve"] },
  { say: "Why that record: every candidate with its verdict.", run: ["sh", "-c", "majordomus handover --resolve --json | head -c 600; echo"] },
  { say: "Derived records need no model: --derive composes one from the task record, the ledger, git and the questions.", run: ["sh", "-c", "majordomus checkpoint --derive && majordomus checkpoint --show | head -12"] },
  { say: "context: everything the layer knows, in authority order, within a line budget (read-only).", run: ["majordomus", "context", "--budget-lines", "60"] },
  { say: "Now the client's side. `capture install` writes four hook shims, Claude Code's settings and the handover mod (the policy switches it on).", run: ["sh", "-c", "majordomus capture install && git add .claude && git commit -qm 'Wire majordomus into Claude Code'"] },
  { say: "capture status proves the wiring: the shims must be byte for byte what this majordomus writes, and what they run is run with synthetic payloads, mutation disabled.", run: ["sh", "-c", "majordomus capture status | head -3"] },
  { say: "Session 1 begins: Claude Code runs the start shim with its payload; stdout is the briefing it adds to the model's context.", run: ["sh", "-c", `printf '{"session_id":"tour-1","source":"startup"}' | .claude/hooks/majordomus-session-start`] },
  { say: "The person's prompt is archived (private, secrets redacted); the hook prints nothing.", run: ["sh", "-c", `printf '{"session_id":"tour-1","prompt_id":"p-1","prompt":"add the config loader; my token is ghp_abcdefghijklmnopqrstuvwxyz0123"}' | .claude/hooks/majordomus-capture && grep -h '"text"' .ai/local/prompts/*.json`] },
  { say: "The agent works, commits, and records a decision inside its episode (the ledger line carries the episode).", run: ["sh", "-c", "echo 'export const configPath = \"greeting.json\";' > src/config.ts && git add src && git commit -qm 'config loader' && CLAUDE_CODE_SESSION_ID=tour-1 majordomus decision 'Config lives in greeting.json' --why 'one file to edit'"] },
  { say: "Before compacting, the client runs the compact shim. It answers at once and hands the derived checkpoint to a detached worker (its ticket sits in .ai/local/state/hook-work/ until done); the episode stays open.", run: ["sh", "-c", `printf '{"session_id":"tour-1","trigger":"auto"}' | .claude/hooks/majordomus-session-compact; ls .ai/local/state/hook-work/; ${SETTLE}; majordomus history --event task.checkpoint --limit 1; CLAUDE_CODE_SESSION_ID=tour-1 majordomus session status`] },
  { say: "Near the end of its window the agent writes its own handover (the mod asks it to), inside its episode.", run: ["sh", "-c", "printf '# Objective\\nLoad the greeting from greeting.json.\\n\\n# Current State\\nsrc/config.ts names the file; nothing reads it yet.\\n\\n# Next Action\\nRead greeting.json in src/config.ts and fall back to \"hi\" when it is missing.\\n' | CLAUDE_CODE_SESSION_ID=tour-1 majordomus handover --no-task"] },
  { say: "The session ends (reason other: the client did not say it was deliberate). The hook claims the close, then writes it before it returns (a client that exits at once still gets its record): a final checkpoint, a derived continuation record and one shared closed record.", run: ["sh", "-c", `printf '{"session_id":"tour-1","reason":"other"}' | .claude/hooks/majordomus-session-end; majordomus session list`] },
  { say: "The shared record: front matter with ids, commits, files and references; a body composed from the policy's sections. No transcript.", run: ["sh", "-c", "majordomus session latest | head -40"] },
  { say: "Session 2 begins: its briefing hands on the agent's own Next Action (quoted, labelled against git and by age); the newer derived record is named only as what came since.", run: ["sh", "-c", `printf '{"session_id":"tour-2","source":"startup"}' | .claude/hooks/majordomus-session-start`] },
  { say: "doctor checks the whole layer: validity, privacy, records, lost work, declared wiring.", run: ["majordomus", "doctor"] },
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
