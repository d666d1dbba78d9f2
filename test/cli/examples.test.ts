// Every example every `--help` shows runs as written: the help tree is walked through the compiled
// binary, and each example line is run by a shell, in order, in a scratch repository with capture
// installed, an active task and the files the examples read (payload.json, handover.md, notes.md).
// "As written" means its words are understood and nothing breaks: it succeeds, or it refuses for
// the state the earlier examples left (10 findings, 12 nothing to act on, 15 refused: `init` where
// the layer exists, `start` beside an active task); never a usage error (2) or an internal one (13).
// An example that serves (serve, mcp) passes when it is still serving after a moment.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { BIN } from "../support/env.ts";
import { captured, fixture } from "../support/capture.ts";
import { HANDOVER, ok } from "../support/layered.ts";
import { scratch } from "../support/repo.ts";

/** Every example line of the help tree, in the order a person reads them (the top level first, then each command). */
function examples(path: string[] = []): string[] {
  const help = spawnSync(BIN, [...path, "--help"], { encoding: "utf8" }).stdout;
  const section = (title: string) => {
    const at = help.indexOf(`\n${title}:\n`);
    if (at === -1) return [];
    const rest = help.slice(at + title.length + 3);
    return rest.slice(0, rest.search(/\n\n|$/)).split("\n");
  };
  const own = section("Examples").map((l) => l.trim());
  // Subcommands are listed under headings of their own (Set up, Work on a task, …): every heading but these.
  const headings = [...help.matchAll(/\n\n([A-Z][^\n:]*):\n/g)]
    .map((m) => m[1]!)
    .filter((t) => !["Options", "Examples", "Arguments"].includes(t));
  const subcommands = path.length < 2 ? headings.flatMap((h) => section(h)).map((l) => l.trim().split(/\s+/)[0]!) : [];
  return [...own, ...subcommands.flatMap((c) => examples([...path, c]))];
}

/** Examples that serve until stopped: running after a moment is a pass. */
const SERVES = /^majordomus (serve|mcp)\b/;
/** Exits that say the example ran and the state refused it. */
const STATE_EXITS = new Set([0, 10, 12, 15]);
/** A line for another program (the client's own command that registers us): not ours to run. */
const NOT_OURS = /^claude /;

describe("--help examples", () => {
  const all = [...new Set(examples())];

  test("the help tree has examples to run", () => {
    expect(all.length).toBeGreaterThanOrEqual(50);
  });

  test("every example runs as written in a scratch repository", () => {
    using repo = captured();
    const home = scratch("majordomus-examples-home-");
    const START = fixture("SessionStart-startup.json");
    writeFileSync(repo.path("payload.json"), JSON.stringify(START));
    writeFileSync(repo.path("handover.md"), HANDOVER);
    writeFileSync(repo.path("notes.md"), HANDOVER);
    ok(repo.mj(["start", "warm up", "--scope", "src"], { env: { CLAUDE_CODE_SESSION_ID: String(START.session_id) } }));
    const failures: string[] = [];
    for (const line of all.filter((l) => !NOT_OURS.test(l))) {
      const script = line
        .replace(/\s+#.*$/, "")
        .replace("<id>", String(START.session_id))
        // Completion scripts go where the person keeps them; here, nowhere.
        .replace(/ > \S+$/, " > /dev/null");
      const run = spawnSync("bash", ["-c", script], {
        cwd: repo.dir,
        encoding: "utf8",
        timeout: SERVES.test(script) ? 3_000 : 30_000,
        env: {
          ...process.env,
          HOME: home,
          PATH: `${dirname(BIN)}:${process.env.PATH}`,
          CLAUDE_CODE_SESSION_ID: String(START.session_id),
        },
      });
      const served = SERVES.test(script) && run.signal === "SIGTERM";
      if (!served && !STATE_EXITS.has(run.status ?? -1))
        failures.push(
          `${line}\n  exit ${run.status ?? run.signal}: ${run.stderr.trim().split("\n").slice(0, 3).join(" / ")}`,
        );
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe("an error message never echoes a secret it was given", () => {
  const TOKEN = `ghp_${"Zx9Kq2Lm4Np6Rs8Tv0Wy".repeat(2)}`;
  test.each([
    ["finish --note", ["finish", "--outcome", "partial", "--note", `parser done; ${TOKEN}`]],
    ["handover --show", ["handover", "--show", `${TOKEN}.md`]],
    ["question resolve", ["question", "resolve", TOKEN, "--answer", "yes"]],
    ["session show", ["session", "show", TOKEN]],
    ["an unknown option", ["history", `--${TOKEN}`]],
  ])("%s", (_name, args) => {
    using repo = captured();
    const run = repo.mj(args as string[]);
    expect(run.status).not.toBe(0);
    expect(run.stderr.length).toBeGreaterThan(0);
    expect(run.stderr).not.toContain(TOKEN);
  });
});
