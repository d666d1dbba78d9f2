/**
 * The least a hook could do, compiled the way the binary is: read the payload, append one line
 * to a file and, with `--git`, run `git status` and write its answer to a second file. No
 * majordomus code at all. The benchmark runs it beside the real hooks to show how much of their
 * cost is the runtime, node:fs and one git process rather than ours.
 *
 *   floor <repo> [--git]
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const [repo, flag] = process.argv.slice(2);
if (!repo) throw new Error("usage: floor <repo> [--git]");
const status = flag === "--git" ? Bun.spawn(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], { cwd: repo, stdin: "ignore", stdout: "pipe", stderr: "ignore" }) : undefined;
const payload = readFileSync(0, "utf8");
appendFileSync(`${repo}/.ai/local/state/floor.jsonl`, `${JSON.stringify({ ts: new Date().toISOString(), bytes: payload.length })}\n`);
if (status) {
  const text = await new Response(status.stdout).text();
  await status.exited;
  writeFileSync(`${repo}/.ai/local/state/floor.tmp`, text);
  renameSync(`${repo}/.ai/local/state/floor.tmp`, `${repo}/.ai/local/state/floor.status`);
}
