// The compiled binary on its own: no source tree, no config from the folder it runs in.
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, PROJECT } from "../support/env.ts";
import { Repo, scratch, sh } from "../support/repo.ts";
import { layered } from "../support/layered.ts";

const pkg = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8"));

describe("the binary", () => {
  test("doctor goes on in the same process without the JIT once its caches hold, and without the JIT's last tier before (the binary starts twice); a JIT switch the person set is kept; other commands keep the JIT", () => {
    using repo = layered();
    const starts = (args: string[], env: Record<string, string> = {}) => {
      const run = repo.mj(args, { env: { MAJORDOMUS_TRACE: "1", ...env } });
      return {
        status: run.status,
        stdout: run.stdout,
        starts: run.stderr.split("\n").filter((l) => /^majordomus: trace .* main$/.test(l)).length,
      };
    };
    // The first run reads every record: it keeps the JIT's first tiers, and leaves its verdicts behind.
    const first = starts(["doctor", "--json"]);
    expect(first.starts).toBe(2);
    expect(existsSync(repo.path(".ai/local/cache/doctor-verdicts.tsv"))).toBe(true);
    const later = starts(["doctor", "--json"]);
    expect(later.starts).toBe(2);
    const kept = starts(["doctor", "--json"], { BUN_JSC_useJIT: "1" });
    expect(kept.starts).toBe(1);
    expect(starts(["doctor", "--json"], { BUN_JSC_useFTLJIT: "1" }).starts).toBe(1);
    // The same report either way: arguments, output and exit code go through the replacement whole.
    expect({ status: later.status, items: JSON.parse(later.stdout).items }).toEqual({
      status: first.status,
      items: JSON.parse(first.stdout).items,
    });
    expect({ status: later.status, items: JSON.parse(later.stdout).items }).toEqual({
      status: kept.status,
      items: JSON.parse(kept.stdout).items,
    });
    expect(starts(["history", "--limit", "1"]).starts).toBe(1);
    // Replaced before it has said anything: a refusal to fix is said once, by the process that reports.
    writeFileSync(repo.path(".gitignore"), "");
    const refused = repo.mj(["doctor", "--fix"], { env: { MAJORDOMUS_TRACE: "1" } });
    expect(refused.stderr.split("\n").filter((l) => /^majordomus: trace .* main$/.test(l)).length).toBe(2);
    expect(refused.stderr.split("\n").filter((l) => l.includes("nothing fixed")).length).toBe(1);
  });

  test("--version prints the package version and nothing else", () => {
    const run = sh(scratch(), BIN, ["--version"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${pkg.version}\n`);
    expect(run.stderr).toBe("");
  });

  test("a copy far from the source tree still carries share/ with its modes", () => {
    const alone = join(scratch("majordomus-alone-"), "majordomus");
    copyFileSync(BIN, alone);
    sh(join(alone, ".."), "chmod", ["755", alone]);
    using repo = Repo.init();
    const run = sh(repo.dir, alone, ["init"]);
    expect(run.status).toBe(0);
    for (const [layerFile, source] of [
      [".ai/repo/policy.yaml", "share/skeleton/repo/policy.yaml"],
      [".ai/manifest.yaml", "share/skeleton/manifest.yaml"],
      [".ai/repo/sessions/README.md", "share/skeleton/repo/sessions/README.md"],
    ]) {
      expect(readFileSync(repo.path(layerFile!), "utf8")).toBe(readFileSync(join(PROJECT, source!), "utf8"));
    }
  });

  test("never reads .env or bunfig.toml from the folder it runs in", () => {
    using repo = Repo.init();
    const marker = join(repo.dir, "preload-ran");
    writeFileSync(repo.path("preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "yes");\n`);
    writeFileSync(repo.path("bunfig.toml"), 'preload = ["./preload.ts"]\n[run]\npreload = ["./preload.ts"]\n');
    // If .env were read, every ledger line would be stamped in 1999.
    writeFileSync(repo.path(".env"), "MAJORDOMUS_NOW=1999-01-01T00:00:00Z\n");
    expect(repo.mj(["init"]).status).toBe(0);
    expect(repo.mj(["history"]).status).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const line = JSON.parse(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8").trim());
    expect(line.ts.startsWith("1999")).toBe(false);
  });

  test("--help goes to stdout with exit 0; no command prints usage to stderr with exit 2", () => {
    const dir = scratch();
    const help = sh(dir, BIN, ["history", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--rotate");
    expect(help.stdout).not.toMatch(/\u001b\[/);
    const none = sh(dir, BIN, []);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("history");
  });

  test("an internal error exits 13 without a raw stack trace", () => {
    using repo = Repo.init();
    expect(repo.mj(["init"]).status).toBe(0);
    // A file where the handovers' index folder belongs makes publishing fail in a way no rule anticipates.
    writeFileSync(repo.path(".ai/local/state/handovers/.index"), "not a folder\n");
    const run = repo.mj(["handover", "--no-task"], {
      input: "# Objective\nX.\n\n# Current State\nY.\n\n# Next Action\nZ.\n",
    });
    expect(run.status).toBe(13);
    expect(run.stderr).toContain("internal error");
    expect(run.stderr).not.toContain("    at ");
  });
});
