// Help, typos and usage errors, as a person meets them: the compiled binary, every command of the
// command table walked from the root (so a command added later is covered without a new test).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CommandDef } from "citty";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { BIN } from "../support/env.ts";
import { scratch, sh } from "../support/repo.ts";
import { rmSync } from "node:fs";

type Entry = CommandDef<any> | (() => Promise<CommandDef<any>>);

async function paths(table: Record<string, Entry>, prefix: string[] = []): Promise<string[][]> {
  const out: string[][] = [];
  for (const [name, entry] of Object.entries(table)) {
    const cmd = typeof entry === "function" ? await entry() : entry;
    out.push([...prefix, name]);
    const subs = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) as
      Record<string, Entry> | undefined;
    if (subs) out.push(...(await paths(subs, [...prefix, name])));
  }
  return out;
}

let dir: string;
beforeAll(() => {
  dir = scratch("majordomus-help-");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mj = (args: string[]) => sh(dir, BIN, args);

describe("--help", async () => {
  const all = await paths(COMMANDS as unknown as Record<string, Entry>);

  test("the table has nested commands (the walk found them)", () => {
    expect(all.filter((p) => p.length > 1).length).toBeGreaterThanOrEqual(15);
  });

  test.each(all.map((p) => [p.join(" ")]))("`majordomus %s --help` names the whole command and exits 0", (path) => {
    const run = mj([...path.split(" "), "--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout.split("\n")[0]).toStartWith(`majordomus ${path} — `);
    expect(run.stdout).toContain(`Usage: majordomus ${path}`);
    expect(run.stdout).toContain("-h, --help");
    expect(run.stderr).toBe("");
  });

  test("every command a person runs has examples, and each example is the command itself", () => {
    const plumbing = new Set(["capture work"]);
    for (const path of all.map((p) => p.join(" ")).filter((p) => !plumbing.has(p))) {
      const text = mj([...path.split(" "), "--help"]).stdout;
      const examples = (text.split("Examples:\n")[1]?.split("\n\n")[0]?.split("\n") ?? []).filter(
        (l) => l.trim() !== "",
      );
      expect(examples.length, path).toBeGreaterThan(0);
      for (const e of examples) expect(e, path).toContain(`majordomus ${path.split(" ")[0]}`);
    }
  });

  test("the root lists every command, --version, and examples", () => {
    const run = mj(["--help"]);
    expect(run.status).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(run.stdout).toContain("-v, --version");
    expect(run.stdout).toContain("Examples:");
  });
});

describe("typos and unknown flags", () => {
  test.each([
    [["inti"], "did you mean `majordomus init`?"],
    [["histroy"], "did you mean `majordomus history`?"],
    [["session", "lsit"], "did you mean `majordomus session list`?"],
    [["--versoin"], "unknown option --versoin for `majordomus`; did you mean --version?"],
    [["-V"], "unknown option -V for `majordomus`; did you mean -v?"],
    [["doctor", "--fxi"], "did you mean --fix?"],
    [["status"], "did you mean `majordomus session status`?"],
    [["version"], "did you mean `majordomus --version`?"],
    [["log"], "did you mean `majordomus history`?"],
    [["handover", "list"], 'unexpected argument "list"; did you mean `majordomus handover --list`?'],
    [["checkpoint", "show"], "did you mean `majordomus checkpoint --show`?"],
  ])("%p: exit 2, one message naming it and what was meant, no help dump", (args, said) => {
    const run = mj(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(said);
    expect(run.stderr.split("\n").length).toBeLessThanOrEqual(3);
    expect(run.stdout).toBe("");
  });

  test("`help [command …]` is that command's --help", () => {
    for (const [args, title] of [
      [["help"], "majordomus 0"],
      [["help", "session", "list"], "majordomus session list — "],
    ] as const) {
      const run = mj([...args]);
      expect(run.status).toBe(0);
      expect(run.stdout.startsWith(title)).toBe(true);
      expect(run.stdout).toBe(mj([...args.slice(1), "--help"]).stdout);
    }
  });

  test("a word far from every command gets no guess", () => {
    const run = mj(["frobnicate"]);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain("did you mean");
  });

  test("a group without its command says so (exit 2)", () => {
    const run = mj(["session"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("`majordomus session` needs a command");
  });

  test("--version answers alone and beside other root flags", () => {
    expect(mj(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(mj(["-v"]).status).toBe(0);
  });

  test("with --json a failure is one JSON document on stderr, and stdout stays empty", () => {
    // The scratch folder is not a git repository: a usage error.
    const run = mj(["session", "list", "--json"]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    const doc = JSON.parse(run.stderr);
    expect(doc).toMatchObject({
      schema: "majordomus/error/v1",
      error: { kind: "usage", exit_code: 2, hint: expect.stringContaining("git") },
    });
    expect(typeof doc.error.message).toBe("string");
  });
});
