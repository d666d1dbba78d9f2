// Checkpoints and handovers through the compiled binary: the rules a body must pass, publication,
// and what a write leaves in the ledger. No task is needed for any of it.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { HANDOVER, layered, ledger, ok, records } from "../support/layered.ts";
import { captured, fire } from "../support/capture.ts";

describe("checkpoint", () => {
  test("an authored checkpoint is published 0600 with computed front matter and a ledger line, without a task", () => {
    using repo = layered();
    const run = ok(repo.mj(["checkpoint"], { input: "found the bug in the parser\n" }));
    const rel = run.stdout.trim();
    expect(statSync(repo.path(rel)).mode & 0o777).toBe(0o600);
    const text = readFileSync(repo.path(rel), "utf8");
    expect(text).toStartWith("---\nschema: checkpoint/v1\n");
    expect(text).toContain("\ntask_id: none\n");
    expect(text).toMatch(new RegExp(`\nhead: "?${repo.git("rev-parse", "HEAD")}"?\n`));
    expect(text).toContain("\nhow: authored\n");
    expect(text).toEndWith("\nfound the bug in the parser\n");
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "task.checkpoint",
      task_id: "none",
      checkpoint_path: rel,
      how: "authored",
    });
  });

  test("a body over checkpoint.max_body_lines is refused whole, never cut, and nothing is written", () => {
    using repo = layered();
    const body = Array.from({ length: 41 }, (_, i) => `line ${i + 1}`).join("\n");
    const run = repo.mj(["checkpoint"], { input: body });
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("41 lines; checkpoint.max_body_lines allows 40");
    expect(records(repo, "checkpoints")).toEqual([]);
    expect(
      ok(repo.mj(["checkpoint"], { input: Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") })).status,
    ).toBe(0);
  });

  test.each([
    ["head: 0000000\nforged", "sets `head:`"],
    ["fine\ntask_id: t-1", "sets `task_id:`"],
    ["---\nschema: checkpoint/v1\n---\nbody", "opens with `---`"],
  ])("a body that sets identity is refused (10): %p", (body, message) => {
    using repo = layered();
    const run = repo.mj(["checkpoint"], { input: body });
    expect(run.status).toBe(10);
    expect(run.stderr).toContain(message);
    expect(records(repo, "checkpoints")).toEqual([]);
  });

  test("an empty body is refused and points at --derive", () => {
    using repo = layered();
    const run = repo.mj(["checkpoint"], { input: "  \n" });
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("--derive");
  });

  test("--derive says where things stand, lists commits since the task started (at most 8), and says it was derived", () => {
    using repo = layered();
    ok(repo.mj(["start", "refactor", "--scope", "src"]));
    for (let i = 0; i < 10; i++) repo.commit(`step ${i}`, `src/f${i}.txt`);
    ok(repo.mj(["question", "add", "Which API version?"]));
    const rel = ok(repo.mj(["checkpoint", "--derive"])).stdout.trim();
    const body = readFileSync(repo.path(rel), "utf8").split("\n---\n")[1]!;
    expect(body).toContain(
      `At ${repo.git("rev-parse", "--short=7", "HEAD")} on main, working tree clean; 10 file(s) changed since the task started.`,
    );
    expect(body).toContain("Commits since the task started (10):");
    expect(body).toContain("- ... and 2 more commit(s)");
    expect(body).toContain("1 open question(s) block acceptance");
    expect(body).toContain("Derived by `majordomus checkpoint --derive`");
    expect(body.split("\n").filter((l) => l !== "").length).toBeLessThanOrEqual(40);
  });
});

describe("handover", () => {
  test("required sections from the policy: missing or placeholder-only sections are refused (10)", () => {
    using repo = layered();
    const run = repo.mj(["handover"], { input: "# Objective\nShip it.\n\n# Current State\n<describe>\n\n" });
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("lacks required section(s): Current State, Next Action");
    expect(records(repo, "handovers")).toEqual([]);
  });

  test("without a task it is written with task_id none; --close needs a task", () => {
    using repo = layered();
    const rel = ok(repo.mj(["handover"], { input: HANDOVER })).stdout.trim();
    expect(readFileSync(repo.path(rel), "utf8")).toContain("\ntask_id: none\n");
    expect(ledger(repo).at(-1)).toMatchObject({
      event: "task.handed_over",
      task_id: "none",
      closed: false,
      how: "authored",
    });
    const close = repo.mj(["handover", "--close"], { input: HANDOVER });
    expect(close.status).toBe(12);
    expect(close.stderr).toContain("no active task to close");
  });

  test("--close hands the task over; --no-task leaves it out; the two together are a usage error", () => {
    using repo = layered();
    ok(repo.mj(["start", "ship", "--scope", "."]));
    const detached = ok(repo.mj(["handover", "--no-task"], { input: HANDOVER })).stdout.trim();
    expect(readFileSync(repo.path(detached), "utf8")).toContain("\ntask_id: none\n");
    expect(repo.mj(["handover", "--close", "--no-task"], { input: HANDOVER }).status).toBe(2);
    const closed = ok(repo.mj(["handover", "--close"], { input: HANDOVER })).stdout.trim();
    expect(readFileSync(repo.path(closed), "utf8")).toMatch(/\ntask_id: t-\d{14}-[0-9a-f]{4}\n/);
    expect(readFileSync(repo.path(".ai/local/state/current.yaml"), "utf8")).toContain("outcome: handed_over");
    // A new task may start once the last one was handed over.
    ok(repo.mj(["start", "next", "--scope", "."]));
  });

  test("a derived handover passes the same validation as an authored one", () => {
    using repo = layered();
    ok(repo.mj(["start", "ship", "--scope", "src"]));
    repo.commit("work", "src/a.txt");
    ok(repo.mj(["checkpoint"], { input: "parser half done\n" }));
    const rel = ok(repo.mj(["handover", "--derive"])).stdout.trim();
    const text = readFileSync(repo.path(rel), "utf8");
    expect(text).toContain("\nhow: derived\n");
    const body = text.slice(text.indexOf("\n---\n") + 5);
    for (const section of [
      "# Objective",
      "# Current State",
      "# Next Action",
      "# Decisions",
      "# Open Questions",
      "# Verification",
    ])
      expect(body).toContain(`${section}\n`);
    expect(body).toContain("> parser half done");
    expect(body.trim().split("\n").at(-1)).toContain("no model wrote it");
    const again = repo.mj(["handover"], { input: body });
    expect(again.status).toBe(0);
  });

  test("a policy section no derivation can write makes --derive refuse (10), naming it", () => {
    using repo = layered();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(
      policy,
      readFileSync(policy, "utf8").replace(
        "[Objective, Current State, Next Action]",
        "[Objective, Risks, Next Action]",
      ),
    );
    const run = repo.mj(["handover", "--derive"]);
    expect(run.status).toBe(10);
    expect(run.stderr).toContain("Risks");
  });
});

describe("a section heading repeated inside a section", () => {
  const REQUIRED = ["Objective", "Current State", "Next Action"] as const;
  const body = (heading: string, within: string) =>
    REQUIRED.map((s) =>
      s === within
        ? `# ${s}\nFIRST: ${s} ${heading} in ${within}\n\n# ${heading}\nthen: ${s} ${heading} in ${within}\n`
        : `# ${s}\nOnly: ${s} ${heading} in ${within}\n`,
    ).join("\n");

  test("each required heading repeated inside each section: the write is refused, naming the heading, and nothing is stored", () => {
    using repo = captured();
    for (const heading of REQUIRED)
      for (const within of REQUIRED) {
        const run = repo.mj(["handover", "--no-task"], { input: body(heading, within) });
        expect(`${heading} in ${within}: ${run.status}`).toBe(`${heading} in ${within}: 10`);
        expect(run.stderr).toContain(
          `the handover gives the heading(s) # ${heading} more than once; nothing was written`,
        );
      }
    expect(records(repo, "handovers")).toEqual([]);
  });

  test("a record that holds one anyway (a teammate's, an earlier version's): every word is read, the repeat kept as text of its section", () => {
    using repo = captured();
    ok(repo.mj(["handover", "--no-task"], { input: HANDOVER }));
    const [name] = records(repo, "handovers");
    const path = repo.path(".ai/local/state/handovers", name!);
    const text = readFileSync(path, "utf8");
    writeFileSync(
      path,
      text.replace(/# Next Action\n[\s\S]*$/, "# Next Action\nFIRST: do this first\n\n# Next Action\nthen this\n"),
    );
    const resolved = JSON.parse(ok(repo.mj(["handover", "--resolve", "--json"])).stdout);
    expect(resolved.record.next_action).toEqual(["FIRST: do this first", "", "# Next Action", "then this"]);
    const briefing = fire(repo, "start", { session_id: "cc-repeat", source: "startup" }).stdout;
    expect(briefing).toContain("> FIRST: do this first\n>\n> # Next Action\n> then this");
  });
});
