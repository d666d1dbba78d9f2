/**
 * `npm start`: a guided run of majordomus in a scratch git repository, with the compiled binary,
 * as an adopter would use it. It opens with the payoff (two client sessions: what the second one is
 * handed), then shows the rest. Each step says what it shows, prints the command exactly as a
 * person would type it, runs it and prints its output. Plumbing a person would not type (the
 * payload files a client would send, waiting for a hook's detached work) runs unshown.
 * The scratch folder is left for you to explore.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BIN } from "../support/env.ts";

type Step = {
  say: string;
  /** The command line, as typed (run by sh in the scratch repository). */
  cmd: string;
  expect?: number;
  /** Cut long output for the screen. */
  show?: (out: string) => string;
  /** Run unshown, after the command (e.g. wait for the work a hook handed off). */
  after?: string;
};

/** The payloads a client sends its hooks, as files beside the repository (a client pipes them in). */
const PAYLOADS: Record<string, unknown> = {
  "start-1.json": { session_id: "tour-1", source: "startup" },
  "prompt-1.json": {
    session_id: "tour-1",
    prompt_id: "p-1",
    prompt: "add the config loader; my token is ghp_abcdefghijklmnopqrstuvwxyz0123",
  },
  "compact-1.json": { session_id: "tour-1", trigger: "auto" },
  "end-1.json": { session_id: "tour-1", reason: "other" },
  "start-2.json": { session_id: "tour-2", source: "startup" },
};

/** Waits until the work a hook handed to its detached worker is done (its ticket is gone). */
const SETTLE = "while ls .ai/local/state/hook-work/*.work >/dev/null 2>&1; do sleep 0.05; done";
const head = (n: number) => (out: string) => {
  const lines = out.trimEnd().split("\n");
  return lines.length > n ? `${lines.slice(0, n).join("\n")}\n… (${lines.length - n} more lines)` : out;
};

const STEPS: Step[] = [
  // The adopter's first three commands.
  { say: "One binary: the version, and everything it needs embedded.", cmd: "majordomus --version" },
  {
    say: "`init` makes a git repository supervised: a tracked half (.ai/repo) and a private, git-ignored local half (.ai/local).",
    cmd: "majordomus init",
  },
  {
    say: "`capture install` wires Claude Code: four hook shims, its settings, the handover mod, and .mcp.json naming `majordomus mcp`. Commit the layer and the wiring.",
    cmd: "majordomus capture install && git add .ai .gitignore .claude .mcp.json && git commit -qm 'Supervise with majordomus'",
  },

  // The payoff first: two sessions.
  {
    say: "Session 1 starts. Claude Code runs the start shim with its payload; what it prints is the briefing the model reads first.",
    cmd: ".claude/hooks/majordomus-session-start < ../payloads/start-1.json",
  },
  {
    say: "The person's prompt is archived privately, secrets redacted; the hook prints nothing.",
    cmd: ".claude/hooks/majordomus-capture < ../payloads/prompt-1.json && grep -h '\"text\"' .ai/local/prompts/*.json",
  },
  {
    say: "The agent works and commits (inside the session, the client's environment names it: CLAUDE_CODE_SESSION_ID).",
    cmd: "mkdir -p src && echo 'export const configPath = \"greeting.json\";' > src/config.ts && git add src && git commit -qm 'config loader'",
  },
  {
    say: "Before its window fills, the agent writes its own handover (the mod asks it to), in its session.",
    cmd: `CLAUDE_CODE_SESSION_ID=tour-1 majordomus handover --no-task <<'EOF'
# Objective
Load the greeting from greeting.json.

# Current State
src/config.ts names the file; nothing reads it yet.

# Next Action
Read greeting.json in src/config.ts and fall back to "hi" when it is missing.
EOF`,
  },
  {
    say: "Session 1 ends. The hook writes the close before it returns: a final checkpoint, a derived continuation record, one shared closed record.",
    cmd: ".claude/hooks/majordomus-session-end < ../payloads/end-1.json && majordomus session list",
  },
  {
    say: "Session 2 starts: its briefing hands on the agent's own Next Action, quoted and labelled (against git, by age); the newer derived record is named only as what came since.",
    cmd: ".claude/hooks/majordomus-session-start < ../payloads/start-2.json",
  },
  {
    say: "The shared record of session 1: ids, commits, files, references and a composed body. No transcript.",
    cmd: "majordomus session latest",
    show: head(30),
  },

  // Tasks, and the records around them.
  {
    say: "A task gives the work an objective and a scope; it lives across sessions until it is finished.",
    cmd: 'majordomus start "make the greeting configurable" --scope src',
  },
  {
    say: "An open question blocks finishing as completed until it is answered.",
    cmd: 'majordomus question add "Should the greeting come from an env variable or the config file?"',
  },
  {
    say: "A decision is kept with its reason, its task and its commit.",
    cmd: 'majordomus decision "Greeting lives in src/greeting.ts" --why "one place to change it"',
  },
  {
    say: "`check` holds the task against git: the scope, and what refuses acceptance (the open question: exit 10).",
    cmd: "majordomus check",
    expect: 10,
  },
  {
    say: "`question resolve` takes the number check and `question list` show.",
    cmd: 'majordomus question resolve 1 --answer "the config file"',
  },
  {
    say: "Derived records need no model: --derive composes a checkpoint from the task, the ledger, git and the questions.",
    cmd: "majordomus checkpoint --derive && majordomus checkpoint --show",
    show: head(14),
  },
  {
    say: "Before a compaction the client runs the compact shim: it answers at once and leaves the checkpoint to a detached worker.",
    cmd: ".claude/hooks/majordomus-session-compact < ../payloads/compact-1.json",
    after: SETTLE,
  },
  {
    say: "Git moves on after the handover was written; resolution says so (advanced) beside its age.",
    cmd: "echo '// reads greeting.json soon' >> src/config.ts && git commit -qam 'note' && majordomus handover --resolve",
    show: head(12),
  },
  {
    say: "Why that record: every candidate with its verdict, as JSON (one document, with its schema).",
    cmd: "majordomus handover --resolve --json | head -c 400; echo",
  },
  {
    say: "`context`: everything the layer knows, in authority order, within a line budget.",
    cmd: "majordomus context --budget-lines 60",
    show: head(30),
  },

  // Health and bad input.
  {
    say: "`capture status` proves the wiring: the shims are byte for byte this majordomus's, and what they run answers synthetic events.",
    cmd: "majordomus capture status",
  },
  { say: "`doctor` checks the whole layer: validity, privacy, records, lost work, wiring.", cmd: "majordomus doctor" },
  {
    say: "Bad input is named precisely: a wrong type in the policy (exit 10), and where it is.",
    cmd: "sed -i 's/max_body_lines: 40/max_body_lines: forty/' .ai/repo/policy.yaml && majordomus policy",
    expect: 10,
    after: "git checkout -q -- .ai/repo/policy.yaml",
  },
  { say: "A typo gets a suggestion (exit 2).", cmd: "majordomus histroy", expect: 2 },
  {
    say: "A second `init` refuses (exit 15) rather than overwrite anything; `init --extend` adds only what is missing.",
    cmd: "majordomus init",
    expect: 15,
  },
];

function banner(text: string): void {
  console.log(`\n\u2500\u2500 ${text}`);
}

const root = mkdtempSync(join(tmpdir(), "majordomus-tour-"));
const repo = join(root, "repo");
mkdirSync(repo);
mkdirSync(join(root, "payloads"));
for (const [name, payload] of Object.entries(PAYLOADS))
  writeFileSync(join(root, "payloads", name), JSON.stringify(payload));
const env = {
  ...process.env,
  PATH: `${dirname(BIN)}:${process.env.PATH}`,
  GIT_AUTHOR_NAME: "Tour",
  GIT_AUTHOR_EMAIL: "tour@example.invalid",
  GIT_COMMITTER_NAME: "Tour",
  GIT_COMMITTER_EMAIL: "tour@example.invalid",
};
for (const args of [
  ["init", "-q", "-b", "main"],
  ["add", "."],
  ["commit", "-q", "--allow-empty", "-m", "scratch project"],
])
  Bun.spawnSync(["git", ...args], { cwd: repo, env });

console.log(`majordomus tour — a scratch repository in ${repo} (the client's payloads are in ../payloads)`);
let problems = 0;
for (const [i, step] of STEPS.entries()) {
  banner(`${i + 1}. ${step.say}`);
  console.log(
    step.cmd
      .split("\n")
      .map((l, n) => `${n === 0 ? "$" : ">"} ${l}`)
      .join("\n"),
  );
  const run = Bun.spawnSync(["sh", "-c", step.cmd], { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
  const out = run.stdout.toString() + run.stderr.toString();
  const shown = (step.show ? step.show(out) : out).trimEnd();
  if (shown !== "") console.log(shown);
  const want = step.expect ?? 0;
  if (want !== 0 || run.exitCode !== 0) console.log(`(exit ${run.exitCode})`);
  if (run.exitCode !== want) {
    problems++;
    console.log(`!! expected exit ${want}`);
  }
  if (step.after) Bun.spawnSync(["sh", "-c", step.after], { cwd: repo, env });
}
banner(
  problems === 0
    ? `Done. Explore ${repo}, or run \`npm test\` to see everything proven.`
    : `${problems} step(s) did not behave as described.`,
);
process.exit(problems === 0 ? 0 : 1);
