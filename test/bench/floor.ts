/**
 * The least a hook could do, compiled the way the binary is, with no majordomus code at all: the
 * same file I/O its hook does, and nothing else. The benchmark runs each floor beside its hook to
 * show how much of the hook's cost is the runtime, node:fs and git rather than ours.
 *
 *   floor <repo> line             read the payload, append one line (the least any hook does)
 *   floor <repo> prompt           the prompt hook's I/O: read HEAD, its ref, the repository id,
 *                                 the manifest and the episode; append the receipt under the
 *                                 ledger lock; publish one record (temp file flushed to disk,
 *                                 link, unlink: a prompt record is durable once published)
 *   floor <repo> start            the start hook's I/O: git status started at once; the reads
 *                                 above plus the policy, the open questions, the hand-off folder
 *                                 and the handover index and record; the receipt under the lock;
 *                                 a dozen lines of briefing on stdout
 *   floor <repo> doctor <bin>     doctor's I/O on a first run: every file under .ai read once, every
 *                                 ledger line parsed, git status once, and <bin> run three times at
 *                                 once (as the wiring proofs run the shims)
 *   floor <repo> doctor <bin> parse   the same, and each file parsed as its reader must: a record's
 *                                 front matter as YAML (by the yaml package), a prompt as JSON
 */
import { closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import type { Dirent } from "node:fs";
import { parse } from "yaml";
import { join } from "node:path";

const [repo, mode = "line"] = process.argv.slice(2);
if (!repo) throw new Error("usage: floor <repo> line|prompt|start");
const status =
  mode === "start"
    ? Bun.spawn(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], {
        cwd: repo,
        // As the shim runs it: never writing the index, so the floor neither pays for that write
        // nor refreshes the index for the hook it is compared with.
        env: { ...process.env, LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
      })
    : undefined;
const state = join(repo, ".ai/local/state");
const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
const list = (path: string) => {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
};
const payload = readFileSync(0, "utf8");
const line = `${JSON.stringify({ ts: new Date().toISOString(), event: "floor", bytes: payload.length })}\n`;

function append(): void {
  const lock = join(state, "floor.lock");
  closeSync(openSync(lock, "wx", 0o600));
  const fd = openSync(join(state, "floor.jsonl"), "a", 0o600);
  writeSync(fd, line);
  closeSync(fd);
  unlinkSync(lock);
}

const PARSE = process.argv[5] === "parse";

/** Every regular file under `dir`, read once; the ledger's lines each parsed (and, with `parse`, every record). */
function readAll(dir: string): number {
  let bytes = 0;
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) bytes += readAll(path);
    else if (e.isFile()) {
      const text = read(path);
      bytes += text.length;
      if (e.name === "ledger.jsonl") for (const l of text.split("\n")) if (l !== "") JSON.parse(l);
      if (PARSE && e.name.endsWith(".json")) JSON.parse(text);
      if (PARSE && e.name.endsWith(".md") && text.startsWith("---\n")) parse(text.slice(4, text.indexOf("\n---", 4)));
    }
  }
  return bytes;
}

if (mode === "doctor") {
  const bin = process.argv[4]!;
  const run = (args: string[]) =>
    Bun.spawn(args, { cwd: repo, stdin: "ignore", stdout: "pipe", stderr: "ignore" }).exited;
  const done = Promise.all([
    run(["git", "status", "--porcelain=v1", "-z"]),
    ...[1, 2, 3].map(() => run([bin, "--version"])),
  ]);
  const bytes = readAll(join(repo, ".ai"));
  await done;
  process.stdout.write(`${bytes} bytes read\n`);
} else if (mode === "line") {
  const fd = openSync(join(state, "floor.jsonl"), "a", 0o600);
  writeSync(fd, line);
  closeSync(fd);
} else {
  const head = read(join(repo, ".git/HEAD")).trim();
  read(join(repo, ".git", head.replace(/^ref: /, "")));
  read(join(repo, ".git/majordomus-repository"));
  read(join(repo, ".ai/manifest.yaml"));
  read(join(state, "sessions-open/bench-live.yaml"));
  append();
  if (mode === "prompt") {
    const target = join(repo, ".ai/local/prompts", `floor-${process.pid}-${Date.now()}.json`);
    const temp = `${target}.tmp`;
    const fd = openSync(temp, "wx", 0o600);
    writeSync(fd, JSON.stringify({ schema: "prompt/v1", text: payload }));
    fsyncSync(fd);
    closeSync(fd);
    linkSync(temp, target);
    unlinkSync(temp);
  } else {
    read(join(repo, ".ai/repo/policy.yaml"));
    read(join(state, "open-questions.md"));
    list(join(state, "hook-work"));
    const index = read(join(state, "handovers/.index/main"));
    const file = /"file":"([^"]+)"/.exec(index)?.[1];
    if (file) read(join(state, "handovers", file));
    const text = await new Response(status!.stdout).text();
    await status!.exited;
    const lines = [
      "## floor",
      "",
      `working tree ${text === "" ? "clean" : "dirty"}`,
      ...Array.from({ length: 10 }, (_, i) => `line ${i}`),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
