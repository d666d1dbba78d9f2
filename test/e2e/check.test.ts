// `majordomus check`: the active task held against git, and what refuses acceptance; read-only.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { layered, ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

type Finding = { level: string; category: string; subject: string; message: string; reproduce: string };

function findings(repo: Repo): { status: number | null; rows: Finding[] } {
  const run = repo.mj(["check", "--json"]);
  return { status: run.status, rows: JSON.parse(run.stdout).items };
}

describe("check", () => {
  test("no task and no questions: passes, and says work outside a task is not held to a scope", () => {
    using repo = layered();
    const { status, rows } = findings(repo);
    expect(status).toBe(0);
    expect(rows.find((r) => r.category === "task")).toMatchObject({ level: "INFO", subject: "none" });
    expect(rows.find((r) => r.category === "blockers")).toMatchObject({ level: "OK", message: "none open" });
    expect(rows.some((r) => r.category === "scope")).toBe(false);
  });

  test("a change outside the task's scope fails (exit 10) and names the file; layer files never count", () => {
    using repo = layered();
    ok(repo.mj(["start", "tune the parser", "--scope", "src"]));
    repo.commit("inside", "src/parse.ts");
    writeFileSync(repo.path(".ai/repo/notes.md"), "the layer's own file\n");
    let { status, rows } = findings(repo);
    expect(status).toBe(0);
    expect(rows.find((r) => r.category === "task")).toMatchObject({ level: "OK" });
    expect(rows.find((r) => r.category === "task")!.message).toContain("advanced");
    expect(rows.find((r) => r.category === "scope")).toMatchObject({ level: "OK" });
    expect(rows.find((r) => r.category === "checkpoint")!.message).toMatch(
      /^last checkpoint or handover (\d+m ago|just now)$/,
    );

    writeFileSync(repo.path("README.md"), "touched\n");
    ({ status, rows } = findings(repo));
    expect(status).toBe(10);
    const scope = rows.find((r) => r.category === "scope")!;
    expect(scope.level).toBe("FAIL");
    expect(scope.message).toContain("1 changed file(s) outside src: README.md");
  });

  test("an open question fails the check until it is resolved; the text output says the same", () => {
    using repo = layered();
    ok(repo.mj(["question", "add", "Which database?"]));
    const { status, rows } = findings(repo);
    expect(status).toBe(10);
    expect(rows.find((r) => r.category === "blockers")).toMatchObject({
      level: "FAIL",
      message: "open: Which database? (refuses finish --outcome completed)",
    });
    const text = repo.mj(["check"]);
    expect(text.status).toBe(10);
    expect(text.stdout).toContain("Which database?");
    expect(text.stderr).toContain("check: 1 failing finding(s)");
    ok(repo.mj(["question", "resolve", "1", "--answer", "Postgres"]));
    expect(findings(repo).status).toBe(0);
  });

  test("it changes nothing: the layer's files are byte-identical after a failing check", () => {
    using repo = layered();
    ok(repo.mj(["start", "x", "--scope", "src"]));
    writeFileSync(repo.path("outside.txt"), "x\n");
    const before = repo.git("status", "--porcelain", "--ignored", "--untracked-files=all");
    const ledgerBefore = readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8");
    expect(findings(repo).status).toBe(10);
    expect(repo.git("status", "--porcelain", "--ignored", "--untracked-files=all")).toBe(before);
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).toBe(ledgerBefore);
  });
});
