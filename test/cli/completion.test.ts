// Completions from the command table, loaded into the real shells (bash always; zsh and fish where
// installed: CI installs them) and asked what they complete.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/env.ts";
import { scratch } from "../support/repo.ts";

const has = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;
function script(shell: string): string {
  const run = spawnSync(BIN, ["completion", shell], { encoding: "utf8" });
  expect(run.status).toBe(0);
  return run.stdout;
}
function inShell(shell: string, file: string, body: string): string {
  const dir = scratch("majordomus-completion-");
  try {
    const path = join(dir, file);
    writeFileSync(path, script(shell));
    const run = spawnSync(shell, ["-c", body.replaceAll("$SCRIPT", path)], {
      encoding: "utf8",
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir },
    });
    expect(run.stderr).toBe("");
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const lines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t")[0]);

describe("majordomus completion", () => {
  test("bash: commands, nested commands, options and enum values", () => {
    const ask = (words: string[]) =>
      lines(
        inShell(
          "bash",
          "c.bash",
          `source $SCRIPT; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _majordomus; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ),
      );
    expect(ask(["majordomus", "sess"])).toEqual(["session"]);
    expect(ask(["majordomus", "session", ""])).toEqual(
      expect.arrayContaining(["start", "close", "status", "list", "show", "latest", "context"]),
    );
    expect(ask(["majordomus", "session", "start", "--if-open", ""])).toEqual(["refuse", "keep"]);
    expect(ask(["majordomus", "capture", "un"])).toEqual(["uninstall"]);
    expect(ask(["majordomus", "doctor", "--f"])).toEqual(["--fix"]);
  });

  test.if(has("zsh"))("zsh: parses, and offers the same words (needs zsh)", () => {
    expect(spawnSync("zsh", ["-n"], { input: script("zsh") }).status).toBe(0);
    const stubs =
      'compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; _describe() { local -a a; a=("${(@P)2}"); print -l -- "${a[@]%%:*}"; };';
    expect(
      lines(
        inShell("zsh", "_majordomus", `${stubs} source $SCRIPT; words=(majordomus session ''); CURRENT=3; _majordomus`),
      ),
    ).toEqual(expect.arrayContaining(["start", "status", "--help"]));
    expect(
      lines(
        inShell("zsh", "_majordomus", `${stubs} source $SCRIPT; words=(majordomus doctor --); CURRENT=3; _majordomus`),
      ),
    ).toEqual(expect.arrayContaining(["--all", "--fix", "--json"]));
  });

  test.if(has("fish"))("fish: parses, and completes with descriptions (needs fish)", () => {
    expect(spawnSync("fish", ["-n"], { input: script("fish") }).status).toBe(0);
    const out = inShell(
      "fish",
      "c.fish",
      "source $SCRIPT; complete -C 'majordomus session '; echo ---; complete -C 'majordomus session start --if-open '",
    );
    const [subs, values] = out.split("---\n");
    expect(lines(subs!)).toEqual(expect.arrayContaining(["start", "close", "status"]));
    expect(subs).toContain("Open an episode by hand");
    expect(lines(values!).sort()).toEqual(["keep", "refuse"]);
  });

  test("an unknown shell is a usage error naming the three", () => {
    const run = spawnSync(BIN, ["completion", "tcsh"], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("give one of bash, zsh, fish");
  });
});
