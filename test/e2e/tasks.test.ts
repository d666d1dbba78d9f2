// start and finish: one active task per checkout, and the notes each outcome needs.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { HANDOVER, layered, ledger, ok } from "../support/layered.ts";

describe("start", () => {
  test("records the task with normalised scope and its start commit; a second start refuses (15) and says what to do", () => {
    using repo = layered();
    const started = JSON.parse(
      ok(repo.mj(["start", "fix the timeout", "--scope", "./src/, docs,src", "--owner", "ana", "--json"])).stdout,
    ).task;
    expect(started).toMatchObject({
      task: "fix the timeout",
      scope: ["src", "docs"],
      owner: "ana",
      profile: "implementation",
      outcome: "active",
      head: repo.git("rev-parse", "HEAD"),
    });
    expect(started.id).toMatch(/^t-\d{14}-[0-9a-f]{4}$/);
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "task.started",
      task_id: started.id,
      scope: ["src", "docs"],
      owner: "ana",
    });
    const again = repo.mj(["start", "another", "--scope", "."]);
    expect(again.status).toBe(15);
    expect(again.stderr).toContain(started.id);
    expect(again.stderr).toContain("handover --close");
    expect(again.stderr).toContain("finish --outcome");
  });

  test.each([
    [["start", "x", "--scope", "/etc"], "is absolute"],
    [["start", "x", "--scope", "../up"], "leaves the repository"],
    [["start", "x", "--scope", " , "], "names no path"],
    [["start", "x"], "missing option --scope"],
    [["start", "  ", "--scope", "."], "task description is empty"],
    [["start", "x", "--scope", ".", "--profile", "Bad Name"], "not a valid name"],
  ])("%p is a usage error: %s", (args, message) => {
    using repo = layered();
    const run = repo.mj(args as string[]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message as string);
    expect(existsSync(repo.path(".ai/local/state/current.yaml"))).toBe(false);
  });

  test("a finished task is archived when the next one starts", () => {
    using repo = layered();
    const first = JSON.parse(ok(repo.mj(["start", "one", "--scope", ".", "--json"])).stdout).task;
    writeFileSync(repo.path("note.md"), "# Reason\nThe approach does not fit.\n");
    ok(repo.mj(["finish", "--outcome", "failed", "--note", "note.md"]));
    ok(repo.mj(["start", "two", "--scope", "."]));
    expect(readFileSync(repo.path(`.ai/local/state/archive/${first.id}.yaml`), "utf8")).toContain("outcome: failed");
  });
});

describe("finish", () => {
  test.each([
    ["completed", "# Objective\nx\n# Current State\ny\n", "# Next Action"],
    ["partial", "# Objective\nx\n", "# Next Action"],
    ["blocked", "# Next Action\n<fill in>\n", "# Next Action"],
    ["no_match", "# Next Action\nnothing\n", "# Reason"],
    ["failed", "# Summary\nbroke\n", "# Reason"],
  ])("--outcome %s refuses (10) a note without its sections", (outcome, note, missing) => {
    using repo = layered();
    ok(repo.mj(["start", "t", "--scope", "."]));
    writeFileSync(repo.path("note.md"), note);
    const run = repo.mj(["finish", "--outcome", outcome, "--note", "note.md"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain(missing);
    expect(readFileSync(repo.path(".ai/local/state/current.yaml"), "utf8")).toContain("outcome: active");
  });

  test("without --note the newest handover naming the task is the note", () => {
    using repo = layered();
    ok(repo.mj(["start", "t", "--scope", "."]));
    const missing = repo.mj(["finish", "--outcome", "partial"]);
    expect(missing.status).toBe(12);
    ok(repo.mj(["handover"], { input: HANDOVER }));
    const done = JSON.parse(ok(repo.mj(["finish", "--outcome", "partial", "--json"])).stdout);
    expect(readFileSync(repo.path(done.note_path), "utf8")).toBe(HANDOVER);
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "task.finished",
      outcome: "partial",
      note_path: done.note_path,
    });
  });

  test("open questions refuse completed only; resolving them lets it through", () => {
    using repo = layered();
    ok(repo.mj(["start", "t", "--scope", "."]));
    ok(repo.mj(["handover"], { input: HANDOVER }));
    ok(repo.mj(["question", "add", "Is the API frozen?"]));
    const refused = repo.mj(["finish", "--outcome", "completed"]);
    expect(refused.status).toBe(10);
    expect(refused.stderr).toContain("1 open question(s)");
    expect(refused.stderr).toContain("Is the API frozen?");
    ok(repo.mj(["question", "resolve", "1", "--answer", "yes, since v2"]));
    ok(repo.mj(["finish", "--outcome", "completed"]));
  });

  test("open questions do not refuse other outcomes", () => {
    using repo = layered();
    ok(repo.mj(["start", "t", "--scope", "."]));
    ok(repo.mj(["question", "add", "Still open?"]));
    writeFileSync(repo.path("note.md"), "# Next Action\nAsk the product owner.\n");
    ok(repo.mj(["finish", "--outcome", "blocked", "--note", "note.md"]));
  });

  test("no active task: 12; an unknown outcome: 2", () => {
    using repo = layered();
    expect(repo.mj(["finish", "--outcome", "completed"]).status).toBe(12);
    expect(repo.mj(["finish", "--outcome", "done"]).status).toBe(2);
  });

  test("a damaged task record does not stop checkpoints or handovers", () => {
    using repo = layered();
    writeFileSync(repo.path(".ai/local/state/current.yaml"), "id: [broken\n");
    const run = ok(repo.mj(["checkpoint"], { input: "still recording\n" }));
    expect(run.stderr).toContain("current.yaml");
    ok(repo.mj(["handover", "--derive"]));
    expect(repo.mj(["finish", "--outcome", "partial"]).status).toBe(10);
  });
});
