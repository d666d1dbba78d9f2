// The open-questions file has exactly two entry shapes; everything else on a list line is malformed.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseQuestions } from "../../src/questions/store.ts";
import { PROJECT } from "../support/env.ts";

const TEMPLATE = readFileSync(join(PROJECT, "share/skeleton/local/state/open-questions.md"), "utf8");

describe("open questions file", () => {
  test("the template's example lines are inside a comment and never read", () => {
    const q = parseQuestions(TEMPLATE, "q.md");
    expect(q).toMatchObject({ open: [], resolved: [], malformed: [] });
  });

  test("both shapes parse; every other list line is malformed with its line number", () => {
    const text = [
      "# Open questions",
      "Some prose is fine.",
      "- [unresolved] t-1 — Is the API frozen? (2026-11-30)",
      "- [resolved 2026-12-01] none — Which DB? — Postgres",
      "- [unresolved] t-1 — missing its date",
      "* a loose bullet",
      "- [open] t-2 — other shape (2026-11-30)",
      "  - [unresolved] t-3 — indented is read too (2026-11-30)",
      "<!-- - [unresolved] hidden — not read (2026-11-30) -->",
      "text <!-- - [resolved 2026-01-01] x — y — z --> - [unresolved] t-4 — after a comment (2026-11-30)",
    ].join("\n");
    const q = parseQuestions(text, "q.md");
    expect(q.open.map((o) => [o.line, o.taskId, o.text, o.opened])).toEqual([
      [3, "t-1", "Is the API frozen?", "2026-11-30"],
      [8, "t-3", "indented is read too", "2026-11-30"],
    ]);
    expect(q.resolved.map((r) => [r.line, r.taskId, r.text, r.answer, r.resolved])).toEqual([
      [4, "none", "Which DB?", "Postgres", "2026-12-01"],
    ]);
    expect(q.malformed.map((m) => m.line)).toEqual([5, 6, 7]);
  });
});
