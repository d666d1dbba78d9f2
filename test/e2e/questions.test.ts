// question add | list | resolve, and decision, through the compiled binary. No task needed.
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { layered, ledger, ok } from "../support/layered.ts";

const QUESTIONS = ".ai/local/state/open-questions.md";

describe("questions", () => {
  test("add works without a task, list numbers them, resolve by number or by text", () => {
    using repo = layered();
    const env = { MAJORDOMUS_NOW: "2026-11-30T09:00:00Z" };
    ok(repo.mj(["question", "add", "Is the API frozen?"], { env }));
    ok(repo.mj(["question", "add", "Which database?"], { env }));
    expect(readFileSync(repo.path(QUESTIONS), "utf8")).toContain(
      "- [unresolved] none — Is the API frozen? (2026-11-30)\n",
    );
    expect(ok(repo.mj(["question", "list"])).stdout).toBe(
      "1. Is the API frozen?  (task none, opened 2026-11-30)\n2. Which database?  (task none, opened 2026-11-30)\n",
    );
    ok(
      repo.mj(["question", "resolve", "2", "--answer", "Postgres"], {
        env: { MAJORDOMUS_NOW: "2026-12-01T00:00:00Z" },
      }),
    );
    ok(repo.mj(["question", "resolve", "frozen", "--answer", "yes"], { env }));
    expect(readFileSync(repo.path(QUESTIONS), "utf8")).toContain(
      "- [resolved 2026-12-01] none — Which database? — Postgres\n",
    );
    expect(ok(repo.mj(["question", "list"])).stdout).toBe("no open questions\n");
    expect(ok(repo.mj(["question", "list", "--all"])).stdout).toContain(
      "Which database?  (task none, resolved 2026-12-01: Postgres)",
    );
    const events = ledger(repo).map((e) => e.event);
    expect(events.filter((e) => e === "question.opened").length).toBe(2);
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "question.resolved",
      question: "Is the API frozen?",
      answer: "yes",
      task_id: "none",
    });
  });

  test("selectors: ambiguous is 2, no match is 12; bad text is refused", () => {
    using repo = layered();
    ok(repo.mj(["question", "add", "Which API version?"]));
    ok(repo.mj(["question", "add", "Which API owner?"]));
    expect(repo.mj(["question", "resolve", "API", "--answer", "x"]).status).toBe(2);
    expect(repo.mj(["question", "resolve", "database", "--answer", "x"]).status).toBe(12);
    expect(repo.mj(["question", "resolve", "7", "--answer", "x"]).status).toBe(12);
    expect(repo.mj(["question", "add", "a — b"]).status).toBe(2);
    expect(repo.mj(["question", "add", "two\nlines"]).status).toBe(2);
    expect(repo.mj(["question", "resolve", "1"]).status).toBe(2);
  });

  test("a malformed entry is reported by list (10) and refuses completion", () => {
    using repo = layered();
    appendFileSync(repo.path(QUESTIONS), "- [unresolved] hand-typed without a date\n");
    const run = repo.mj(["question", "list"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toMatch(/open-questions\.md:\d+: not a question line/);
    ok(repo.mj(["start", "t", "--scope", "."]));
    ok(repo.mj(["handover"], { input: "# Objective\na\n# Current State\nb\n# Next Action\nc\n" }));
    const finish = repo.mj(["finish", "--outcome", "completed"]);
    expect(finish.status).toBe(10);
    expect(finish.stderr).toContain("1 malformed line(s)");
  });
});

describe("decision", () => {
  test("appends with task, head and date, and a ledger line", () => {
    using repo = layered();
    ok(repo.mj(["start", "t", "--scope", "."]));
    ok(
      repo.mj(["decision", "Use Postgres", "--why", "we already run it"], {
        env: { MAJORDOMUS_NOW: "2026-11-30T09:00:00Z" },
      }),
    );
    ok(repo.mj(["decision", "Keep the v1 API"]));
    const text = readFileSync(repo.path(".ai/local/state/decisions.md"), "utf8");
    const task = JSON.parse(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8").split("\n")[1]!).task_id;
    expect(text).toContain(
      `## 2026-11-30 — Use Postgres\n- Task: ${task}\n- Head: ${repo.git("rev-parse", "HEAD")}\n- Why: we already run it\n`,
    );
    expect(text).toContain("— Keep the v1 API\n");
    expect(text).toContain("- Why: not recorded\n");
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "decision.recorded",
      decision: "Keep the v1 API",
      task_id: task,
    });
  });

  test("`decision list` lists them newest first, paged; it records nothing, and a decision titled list is written after --", () => {
    using repo = layered();
    for (let i = 1; i <= 22; i++) ok(repo.mj(["decision", `Choice ${i}`, "--why", `reason ${i}`]));
    const before = readFileSync(repo.path(".ai/local/state/decisions.md"), "utf8");
    const page = ok(repo.mj(["decision", "list"]));
    const lines = page.stdout.trim().split("\n");
    expect(lines.length).toBe(20);
    expect(lines[0]).toMatch(/^\d{4}-\d{2}-\d{2} — Choice 22 \(task none, head [0-9a-f]{12}\): reason 22$/);
    expect(page.stderr).toContain("the newest 20 shown; older ones exist");
    expect(
      ok(repo.mj(["decision", "list", "--limit", "0"]))
        .stdout.trim()
        .split("\n").length,
    ).toBe(22);
    expect(readFileSync(repo.path(".ai/local/state/decisions.md"), "utf8")).toBe(before);
    expect(repo.mj(["decision", "list", "--why", "x"]).status).toBe(2);
    expect(repo.mj(["decision", "Choice 23", "--limit", "3"]).status).toBe(2);
    ok(repo.mj(["decision", "--why", "a word", "--", "list"]));
    expect(readFileSync(repo.path(".ai/local/state/decisions.md"), "utf8")).toContain("— list\n- Task: none\n");
  });
});
