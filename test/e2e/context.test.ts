// majordomus context: authority order, an exact line budget, a fixed drop order, and no writes.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { HANDOVER, layered, ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

function treeDigest(dir: string): string {
  const hash = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const st = statSync(full);
      hash.update(`${relative(dir, full)} ${st.mode} ${st.mtimeMs}\n`);
      if (st.isDirectory()) walk(full);
      else hash.update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest("hex");
}

function busy(): Repo {
  const repo = layered();
  ok(repo.mj(["start", "tighten the parser", "--scope", "src"]));
  for (let i = 0; i < 3; i++) repo.commit(`parser step ${i}`, `src/p${i}.ts`);
  repo.commit("docs", "docs/readme.md");
  ok(repo.mj(["checkpoint"], { input: "the tokenizer is done\nnext: the grammar\n" }));
  ok(repo.mj(["question", "add", "Do we keep the legacy syntax?"]));
  ok(repo.mj(["decision", "Hand-written parser", "--why", "error messages"]));
  ok(repo.mj(["handover"], { input: HANDOVER }));
  return repo;
}

const headings = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("## "))
    .map((l) => l.replace(/ \(.*$/, ""));

describe("majordomus context", () => {
  test("sections in authority order, both labels on records, files only inside the scope, exact budget line", () => {
    using repo = busy();
    const run = ok(repo.mj(["context"]));
    expect(headings(run.stdout)).toEqual([
      "## GIT",
      "## TASK",
      "## OPEN QUESTIONS",
      "## DECISIONS",
      "## LATEST CHECKPOINT",
      "## LATEST COMPATIBLE HANDOVER",
      "## FILES TOUCHED IN SCOPE",
      "## RECENT HISTORY",
      "## EXCLUDED",
      "## BUDGET",
    ]);
    expect(run.stdout).toContain("task record: advanced");
    expect(run.stdout).toContain("labels: exact · fresh");
    expect(run.stdout).toContain("## FILES TOUCHED IN SCOPE (3)\nsrc/p0.ts\nsrc/p1.ts\nsrc/p2.ts\n");
    expect(run.stdout).not.toContain("docs/readme.md\n");
    const printed = run.stdout.replace(/\n$/, "").split("\n");
    expect(printed.at(-1)).toBe(
      `${printed.length} of 300 lines, ${run.stdout.replace(/\n$/, "").length.toLocaleString("en-US")} of 18,000 characters`,
    );
  });

  test("over budget: history, files and decisions go first, then the records' bodies shrink to a pointer; the Next Action and GIT, TASK, QUESTIONS stay", () => {
    using repo = busy();
    const full = ok(repo.mj(["context"]))
      .stdout.replace(/\n$/, "")
      .split("\n").length;
    const gone: string[] = [];
    for (let budget = full - 1; budget >= 20; budget -= 2) {
      const run = repo.mj(["context", "--budget-lines", String(budget)]);
      const lines = run.stdout.replace(/\n$/, "").split("\n");
      if (run.status === 0) {
        // The line budget counts every line but the Next Action's, which it never cuts.
        const last = lines.at(-1)!;
        const besides = /^\d+ lines \((\d+) of (\d+) besides the Next Action\)/.exec(last);
        if (besides) expect([Number(besides[1]) <= budget, Number(besides[2])]).toEqual([true, budget]);
        else expect(last).toStartWith(`${lines.length} of ${budget} lines`);
      }
      for (const kept of [
        "## GIT",
        "## TASK",
        "## OPEN QUESTIONS",
        "## LATEST COMPATIBLE HANDOVER",
        "> Write the parser tests.",
      ])
        expect(lines).toContain(kept);
      for (const h of ["## RECENT HISTORY", "## FILES TOUCHED IN SCOPE", "## DECISIONS"])
        if (!headings(run.stdout).includes(h) && !gone.includes(h)) gone.push(h);
    }
    expect(gone).toEqual(["## RECENT HISTORY", "## FILES TOUCHED IN SCOPE", "## DECISIONS"]);
    const shrunk = ok(repo.mj(["context", "--budget-lines", "40"])).stdout;
    expect(shrunk).toMatch(
      /rest of the body omitted for the budget — `majordomus (checkpoint --show|handover --show \S+\.md)` prints it/,
    );
    // Every command a notice names runs, and prints a record.
    for (const [, command] of shrunk.matchAll(/— `majordomus ([^`]+)` prints it/g))
      expect(ok(repo.mj(command!.split(" "))).stdout).toContain("---");
  }, 600_000);

  test("still over budget after every drop: the document is printed and the exit is 10", () => {
    using repo = busy();
    const run = repo.mj(["context", "--budget-lines", "12"]);
    expect(run.status).toBe(10);
    expect(run.stdout).toContain("## GIT");
    expect(run.stderr).toContain("over the budget of 12");
  });

  test("read-only: nothing in the layer changes, not even the ledger", () => {
    using repo = busy();
    const before = treeDigest(repo.path(".ai"));
    ok(repo.mj(["context"]));
    ok(repo.mj(["context", "--json"]));
    repo.mj(["context", "--budget-lines", "12"]);
    expect(treeDigest(repo.path(".ai"))).toBe(before);
  });

  test("--json carries the same facts: git, task, labels, excluded, budget", () => {
    using repo = busy();
    const json = JSON.parse(ok(repo.mj(["context", "--json"])).stdout);
    expect(json.schema).toBe("majordomus/context/v1");
    expect(json.git.task_record).toBe("advanced");
    expect(json.task.task).toBe("tighten the parser");
    expect(json.handover).toMatchObject({
      divergence: "exact",
      freshness: "fresh",
      next_action: ["Write the parser tests."],
    });
    expect(json.sections.map((s: { id: string }) => s.id)).toEqual([
      "git",
      "task",
      "questions",
      "decisions",
      "checkpoint",
      "handover",
      "files",
      "history",
    ]);
    expect(json.budget.limit).toBe(300);
  });

  test("without a task or records: absence is said, never guessed", () => {
    using repo = layered();
    const run = ok(repo.mj(["context"]));
    expect(run.stdout).toContain("## TASK\nnone active");
    expect(run.stdout).toContain("LATEST COMPATIBLE HANDOVER — no handover for this worktree and branch");
    expect(run.stdout).toContain("FILES TOUCHED IN SCOPE — no active task, so no scope");
  });

  test("a task started on another branch is flagged: trust git", () => {
    using repo = busy();
    repo.git("switch", "-q", "-c", "elsewhere");
    const run = ok(repo.mj(["context"]));
    expect(run.stdout).toContain("task record: different_context");
    expect(run.stdout).toContain("WARNING: the task record is different_context");
  });
});
