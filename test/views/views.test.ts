// The views over hand-built facts, in process: no git, no binary, no files. Each test states the
// facts and reads the text a worker would be handed.
import { uptakeReport } from "../../src/views/uptake.ts";
import { describe, expect, test } from "bun:test";
import type { Facts } from "../../src/facts/facts.ts";
import type { Task } from "../../src/task/record.ts";
import { briefing } from "../../src/views/briefing.ts";
import { contextView } from "../../src/views/context.ts";
import { deriveCheckpoint, deriveHandover } from "../../src/views/derived.ts";
import { continuityView, OPEN_LISTED } from "../../src/views/continuity.ts";
import { pageHtml } from "../../src/views/page.ts";
import type { OpenEpisode } from "../../src/session/store.ts";

import { AT, POLICY, clean, facts, record } from "../support/facts.ts";

const TASK: Task = {
  id: "t-1",
  task: clean("teach the parser comments"),
  profile: "implementation",
  owner: "dev",
  scope: ["src"],
  started_at: "2026-11-30T10:00:00.000Z",
  checkpoint_at: "2026-11-30T11:00:00.000Z",
  outcome: "active",
  repository_id: "r-0123456789abcdef",
  worktree: "/r",
  branch: "main",
  head: "b".repeat(40),
  working_tree: "clean",
};

describe("briefing", () => {
  test("an authored handover is quoted in its author's words, verbatim, with its labels; a newer derived record is named as 'since then'", () => {
    const since = record({ how: "derived", session: "s-2", age: "0m", path: ".ai/local/state/handovers/later.md" });
    const text = briefing(facts({ handover: { view: record(), since, skipped: 0 } })).lines.join("\n");
    expect(text).toContain(
      "Handover .ai/local/state/handovers/20261130T115500000Z--000003--main--aaaaaaa.md (authored, same_worktree_same_branch, exact, fresh, 5m old).",
    );
    expect(text).toContain(
      "Its Next Action, in its author's own words, quoted:\n> Run the parser tests.\n>\n> Then fix the tokenizer.\n",
    );
    expect(text).toContain(
      "Since then: a derived record .ai/local/state/handovers/later.md (0m old, written when episode s-2 ended or compacted)",
    );
  });

  test("a derived handover says no one wrote it", () => {
    const text = briefing(facts({ handover: { view: record({ how: "derived" }), skipped: 0 } })).lines.join("\n");
    expect(text).toContain("(derived, same_worktree_same_branch");
    expect(text).toContain("Its Next Action, derived by majordomus from the records; no one wrote it, quoted:");
  });

  test("a stale handover is history: its Next Action is not quoted", () => {
    const text = briefing(
      facts({ handover: { view: record({ freshness: "stale", history: true, next_action: undefined }), skipped: 0 } }),
    ).lines.join("\n");
    expect(text).toContain("Historical handover");
    expect(text).not.toContain("Run the parser tests.");
  });

  test("our own uncommitted closed records are named as such; the tree stays clean", () => {
    const text = briefing(
      facts({
        snapshot: {
          workingTree: "clean",
          changed: [],
          ownRecords: [".ai/repo/sessions/a.md", ".ai/repo/sessions/b.md"],
        },
      }),
    ).lines.join("\n");
    expect(text).toContain("working tree clean.");
    expect(text).toContain("2 closed session record(s) not committed (majordomus's own, in .ai/repo/sessions/;");
  });

  test("the task is named; an unreadable task record is a warning, not a stop", () => {
    expect(briefing(facts({ task: TASK })).lines).toContain(
      'Task t-1 (active, profile implementation): "teach the parser comments"',
    );
    expect(briefing(facts({ taskProblem: "current.yaml: not a map" })).lines).toContain(
      "WARNING: current.yaml: not a map",
    );
  });

  test("the line budget limits every other part, never the Next Action: 30 steps stay whole under a 14-line budget", () => {
    const small = { path: "p", policy: { ...POLICY, session: { ...POLICY.session, briefing_budget_lines: 14 } } };
    const steps = Array.from({ length: 30 }, (_, i) => `${i + 1}. step ${i + 1}`);
    const questions = {
      path: "/r/q.md",
      open: Array.from({ length: 8 }, (_, i) => ({
        text: `question ${i}`,
        taskId: "t-1",
        opened: "2026-11-30",
        line: i,
      })),
      resolved: [],
      malformed: [],
    } as Facts["questions"];
    const out = briefing(
      facts({ policy: small, questions, handover: { view: record({ next_action: steps }), skipped: 0 } }),
    );
    expect(out.lines.filter((l) => /^> \d+\. step/.test(l)).length).toBe(30);
    expect(out.withheld).toBe(0);
    // The questions yielded to their short form, which names its command; the notice says so in one line.
    expect(out.lines.join("\n")).toContain(
      "BLOCKED: 8 open question(s); each refuses `majordomus finish --outcome completed`; `majordomus question list` lists them.",
    );
    expect(out.lines.join("\n")).not.toContain("question 3");
    expect(out.lines.at(-1)).toBe(
      "(Shortened to fit 14 lines (session.briefing_budget_lines): open questions in short, each naming its command.)",
    );
    expect(out.lines.length - out.quoted).toBeLessThanOrEqual(14);
  });

  const budget = (chars: number, counts: "utf16" | "utf8" = "utf16") => ({ chars, counts, channel: "a test channel" });
  const longSteps = (n: number, width = 190) =>
    Array.from(
      { length: n },
      (_, i) => `${i + 1}. ${"migrate the module and run its tests ".repeat(8).slice(0, width)}`,
    );
  const busy = (next: string[]) =>
    facts({
      task: { ...TASK, scope: ["src/a", "src/b", "src/c", "src/d", "src/e", "test"] },
      questions: {
        path: "/r/q.md",
        open: [1, 2, 3].map((i) => ({
          text: `question ${i} ${"about the schema ".repeat(12)}`,
          taskId: "t-1",
          opened: "2026-11-30",
          line: i,
        })),
        resolved: [],
        malformed: [],
      } as Facts["questions"],
      handover: { view: record({ next_action: next }), skipped: 0 },
      policy: { path: "p", policy: { ...POLICY, session: { ...POLICY.session, briefing_budget_lines: 200 } } },
    });

  test("a Next Action that fits is quoted whole, and nothing else is cut", () => {
    const out = briefing(busy(longSteps(20)), budget(9_500));
    expect(out.cuts).toEqual([]);
    expect(out.lines.filter((l) => l.startsWith("> ")).length).toBe(20);
    expect(out.size).toBeLessThanOrEqual(9_500);
    expect(out.lines.join("\n").length).toBe(out.size);
  });

  test("what yields first is everything else: the questions counted, the scope summarised, each named with its command; the Next Action stays whole", () => {
    const whole = briefing(busy(longSteps(44)));
    expect(whole.lines.join("\n").length).toBeGreaterThan(9_500);
    const out = briefing(busy(longSteps(44)), budget(9_500));
    const text = out.lines.join("\n");
    expect(text.length).toBeLessThanOrEqual(9_500);
    expect(out.lines.filter((l) => l.startsWith("> ")).length).toBe(44);
    expect(out.cuts.map((c) => c.part)).toContain("open questions");
    expect(text).toContain("BLOCKED: 3 open question(s)");
    expect(text).not.toContain("question 1 about");
    expect(text).toContain("`majordomus question list` lists them.");
    expect(out.lines.at(-1)).toBe(
      "(Shortened to fit 9,500 characters (a test channel): open questions in short, each naming its command.)",
    );
  });

  test("a Next Action that cannot fit is cut between lines, counted, and named with the command; the text is within the budget", () => {
    const out = briefing(busy(longSteps(120)), budget(9_500));
    const text = out.lines.join("\n");
    expect(text.length).toBeLessThanOrEqual(9_500);
    const kept = out.lines.filter((l) => /^> \d+\. /.test(l)).length;
    expect(kept).toBeGreaterThan(20);
    expect(kept).toBeLessThan(120);
    expect(text).toContain(
      `… The Next Action is cut here: ${kept} of 120 line(s) quoted, ${120 - kept} left out to fit 9,500 characters (a test channel).`,
    );
    expect(text).toContain(
      "`majordomus handover --show 20261130T115500000Z--000003--main--aaaaaaa.md` prints the whole record.",
    );
    // The labels are never cut.
    expect(text).toContain("(authored, same_worktree_same_branch, exact, fresh, 5m old)");
  });

  test("counted in UTF-8 bytes for a client that counts bytes", () => {
    const czech = Array.from(
      { length: 80 },
      (_, i) => `${i + 1}. přepiš modul čtečky a spusť jeho testy, ať víme, že je hotový`,
    );
    const chars = briefing(busy(czech), budget(4_000, "utf16"));
    const bytes = briefing(busy(czech), budget(4_000, "utf8"));
    expect(new TextEncoder().encode(bytes.lines.join("\n")).length).toBeLessThanOrEqual(4_000);
    expect(bytes.lines.filter((l) => l.startsWith("> ")).length).toBeLessThan(
      chars.lines.filter((l) => l.startsWith("> ")).length,
    );
  });

  test("a cut never ends inside a code fence", () => {
    const next = [
      "Run this:",
      "```sh",
      ...Array.from({ length: 60 }, (_, i) => `echo step ${i} ${"x".repeat(100)}`),
      "```",
      "Then commit.",
    ];
    const out = briefing(busy(next), budget(6_000));
    const quotedLines = out.lines.filter((l) => l.startsWith("> ") || l === ">");
    const fences = quotedLines.filter((l) => l.startsWith("> ```")).length;
    expect(fences % 2).toBe(0);
    expect(out.lines.join("\n").length).toBeLessThanOrEqual(6_000);
  });

  test("one line longer than the whole budget is quoted in part, never half a character", () => {
    const out = briefing(busy(["😀".repeat(20_000)]), budget(3_000));
    const text = out.lines.join("\n");
    expect(text.length).toBeLessThanOrEqual(3_000);
    expect(text).toContain("(the last of them in part)");
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(text)).toBe(false);
  });

  test("a record that cannot be read degrades the briefing", () => {
    expect(briefing(facts({ handover: { skipped: 0, error: "EACCES" } })).lines.join("\n")).toContain(
      "The last handover could not be read (EACCES)",
    );
  });
});

const nextActionOf = (body: string) => /# Next Action\n\n([\s\S]*?)\n# /.exec(body)![1]!;

describe("derived handover", () => {
  const required = POLICY.handover!.required_sections!;

  test("with a task and changed files: it names the task, the files, and the checkpoint it quotes", () => {
    const checkpoint = record({
      path: ".ai/local/state/checkpoints/c.md",
      how: "derived",
      body: "At aaaaaaa on main.\n",
      next_action: undefined,
      created_at: AT.toISOString(),
      age: "0m",
    });
    const body = deriveHandover(
      facts({
        task: TASK,
        files: ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"],
        sinceTask: { start: TASK.head, label: "advanced", commits: [] },
        checkpoint: { view: checkpoint, skipped: 0 },
      }),
      required,
    );
    const next = nextActionOf(body);
    expect(next).toContain("Continue task t-1: teach the parser comments");
    expect(next).toContain(
      "4 changed file(s) (src/a.ts, src/b.ts, src/c.ts and 1 more); `git diff bbbbbbb` shows them.",
    );
    expect(next).toContain(
      "The newest checkpoint (.ai/local/state/checkpoints/c.md) is quoted under this record's Current State; `majordomus checkpoint --show` prints it.",
    );
    expect(body).toContain(
      "Newest checkpoint, written just now (.ai/local/state/checkpoints/c.md):\n> At aaaaaaa on main.",
    );
    expect(body).not.toContain("the changes above");
  });

  test("with a task and nothing changed: it says so and points at the objective and scope", () => {
    const next = nextActionOf(
      deriveHandover(facts({ task: TASK, sinceTask: { start: TASK.head, label: "exact", commits: [] } }), required),
    );
    expect(next).toContain(
      "No file has changed since it started at bbbbbbb: begin from the objective and the declared scope (src).",
    );
    expect(next).toContain("No checkpoint was recorded during this task");
  });

  test("without a task: the uncommitted changes, or that nothing was left in progress", () => {
    expect(nextActionOf(deriveHandover(facts({ files: ["README.md"] }), required))).toContain(
      "No task is active. The working tree holds 1 uncommitted change(s) (README.md)",
    );
    expect(nextActionOf(deriveHandover(facts(), required))).toContain("nothing was left in progress");
  });

  test("open questions come first; an authored handover it follows is named as the source of the next step", () => {
    const questions = {
      path: "q",
      open: [{ line: 3, text: "Which dialect?", taskId: "none", opened: "2026-11-30" }],
      resolved: [],
      malformed: [],
    };
    const next = nextActionOf(deriveHandover(facts({ questions, handover: { view: record(), skipped: 0 } }), required));
    expect(next).toStartWith(
      "The worker's own handover .ai/local/state/handovers/20261130T115500000Z--000003--main--aaaaaaa.md (written 5m ago) says what to do next; follow its Next Action.",
    );
    expect(next).toContain("Answer the open question(s) first");
    expect(next).toContain("- Which dialect?");
  });

  test("an authored handover of another task (finished since) is never pointed at as the next step", () => {
    const other = record({ task_id: "t-finished" });
    const next = nextActionOf(deriveHandover(facts({ handover: { view: other, skipped: 0 } }), required));
    expect(next).not.toContain("The worker's own handover");
    expect(next).toContain("nothing was left in progress");
  });

  test("the handover that closed the last task is the one to follow while no task is active; another task's is not", () => {
    const closing = record({ task_id: "t-closed" });
    const followed = nextActionOf(
      deriveHandover(
        facts({
          handover: { view: closing, skipped: 0 },
          closedBy: { task_id: "t-closed", created_at: closing.created_at },
        }),
        required,
      ),
    );
    expect(followed).toStartWith(`The worker's own handover ${closing.path}`);
    // The same record, not named as the closing one (the task was finished instead): not followed.
    const finished = nextActionOf(deriveHandover(facts({ handover: { view: closing, skipped: 0 } }), required));
    expect(finished).not.toContain("The worker's own handover");
    // A new task is active: the closing words of the old one are not this task's next step.
    const newTask = nextActionOf(
      deriveHandover(
        facts({
          task: TASK,
          handover: { view: closing, skipped: 0 },
          closedBy: { task_id: "t-closed", created_at: closing.created_at },
          sinceTask: { start: TASK.head, label: "exact", commits: [] },
        }),
        required,
      ),
    );
    expect(newTask).not.toContain("The worker's own handover");
  });

  test("a required section no writer fills is refused, naming the ones that can be derived", () => {
    expect(() => deriveHandover(facts(), ["Objective", "Risks"])).toThrow(
      "the policy requires section(s) no derivation can write: Risks",
    );
  });
});

describe("derived checkpoint", () => {
  test("fits the policy's cap: the file list gives way first", () => {
    const many = Array.from({ length: 200 }, (_, i) => `src/f${i}.ts`);
    const body = deriveCheckpoint(
      facts({ task: TASK, files: many, sinceTask: { start: TASK.head, label: "advanced", commits: ["abc1234 one"] } }),
    );
    expect(body.split("\n").length).toBeLessThanOrEqual(POLICY.checkpoint!.max_body_lines!);
    expect(body).toStartWith(`At aaaaaaa on main, working tree clean; 200 file(s) changed since the task started.`);
    expect(body).toContain("Commits since the task started (1):\n- abc1234 one");
  });
});

describe("context", () => {
  test("the handover section names who wrote the Next Action and what came since; own records appear under GIT", () => {
    const since = record({ how: "derived", session: "s-2", age: "0m", path: "later.md" });
    const c = contextView(
      facts({
        snapshot: { workingTree: "clean", changed: [], ownRecords: [".ai/repo/sessions/a.md"] },
        handover: { view: record(), since, skipped: 0 },
      }),
    );
    const text = c.lines.join("\n");
    expect(text).toContain("Next Action, in its author's own words, quoted:\n> Run the parser tests.");
    expect(text).toContain("since then: derived later.md (0m ago, episode s-2)");
    expect(text).toContain("1 closed session record(s) not committed");
    expect(c.git.own_records_uncommitted).toEqual([".ai/repo/sessions/a.md"]);
    expect(c.handover_since?.path).toBe("later.md");
  });

  test("over budget, sections give way in order and the BUDGET line counts itself", () => {
    const c = contextView(
      facts({
        task: TASK,
        sinceTask: { start: TASK.head, label: "advanced", commits: [] },
        handover: { view: record(), skipped: 0 },
      }),
      { budget: 36 },
    );
    // The line budget counts every line but the Next Action's three, which are never cut for it.
    expect(c.lines.length - 3).toBeLessThanOrEqual(36);
    expect(c.over).toBe(false);
    expect(c.lines.at(-1)).toBe(
      `${c.lines.length} lines (${c.lines.length - 3} of 36 besides the Next Action), ${c.lines.join("\n").length.toLocaleString("en-US")} of 18,000 characters (dropped: ${c.budget.dropped.join(", ")})`,
    );
    // What is worth least yields first: the history before the task.
    expect(c.budget.dropped).toContain("FILES TOUCHED IN SCOPE (0)");
    expect(c.budget.dropped).not.toContain("GIT");
  });
});

describe("the read side's account", () => {
  test("a Next Action too long for the answer is cut between lines, counted, and names the command that prints it whole", () => {
    const steps = Array.from(
      { length: 120 },
      (_, i) => `${i + 1}. ${"migrate the module and run its tests ".repeat(5)}`,
    );
    const c = continuityView({
      facts: facts({ handover: { view: record({ next_action: steps }), skipped: 0 } }),
      open: [],
      closed: [],
      openProblems: [],
    });
    expect(JSON.stringify(c, null, 2).length).toBeLessThanOrEqual(18_000);
    expect(c.handover!.next_action!.split("\n").length).toBeGreaterThan(60);
    expect(c.handover!.next_action_cut).toEqual({
      shown_lines: c.handover!.next_action!.split("\n").length,
      total_lines: 120,
      command: "majordomus handover --show 20261130T115500000Z--000003--main--aaaaaaa.md",
    });
    expect(c.next.some((n) => n.includes("was cut to") && n.includes("handover --show"))).toBe(true);
    const short = continuityView({
      facts: facts({ handover: { view: record(), skipped: 0 } }),
      open: [],
      closed: [],
      openProblems: [],
    });
    expect(short.handover!.next_action_cut).toBeNull();
  });

  test("context within its character budget: the Next Action is the last to give way, cut with its command", () => {
    const steps = Array.from(
      { length: 200 },
      (_, i) => `${i + 1}. ${"migrate the module and run its tests ".repeat(5)}`,
    );
    const c = contextView(
      facts({
        task: TASK,
        handover: { view: record({ next_action: steps, body: `# Next Action\n${steps.join("\n")}\n` }), skipped: 0 },
      }),
      { budget: 2_000 },
    );
    const text = c.lines.join("\n");
    expect(c.over).toBe(false);
    expect(text.length).toBeLessThanOrEqual(18_000);
    expect(text).toMatch(
      /… The Next Action is cut here: \d+ of 200 line\(s\) quoted, \d+ left out to fit 18,000 characters \(the context budget\)\. `majordomus handover --show \S+\.md` prints the whole record\./,
    );
    expect(c.lines.at(-1)).toBe(
      `${c.lines.length} of 2000 lines, ${text.length.toLocaleString("en-US")} of 18,000 characters (dropped: ${c.budget.dropped.join(", ")})`,
    );
  });

  test("open episodes by the thousand: the newest are listed, the rest counted, on the page too", () => {
    const episode = (i: number) =>
      ({
        session_id: `s-${i}`,
        provider: "claude-code",
        provider_session: `cc-${i}`,
        opened_by: "hook",
        opened_at: new Date(AT.getTime() - (2000 - i) * 60_000).toISOString(),
        branch: "main",
      }) as unknown as OpenEpisode;
    const open = Array.from({ length: 2000 }, (_, i) => episode(i));
    const c = continuityView({ facts: facts(), open, closed: [], openProblems: [] });
    expect(c.episodes.open.length).toBe(OPEN_LISTED);
    expect(c.episodes.open[0]!.session_id).toBe("s-1999");
    expect(c.episodes.open_more).toBe(2000 - OPEN_LISTED);
    expect(
      pageHtml({
        continuity: c,
        providers: [],
        recovery: { stranded: 0, unfinished_closes: 0, threshold: null },
        uptake: uptakeReport([], 50),
        refreshSeconds: 5,
        clock: { offsetMinutes: 0 },
      }),
    ).toContain(`… and ${2000 - OPEN_LISTED} older open episode(s)`);
    expect(
      pageHtml({
        continuity: c,
        providers: [],
        recovery: { stranded: 0, unfinished_closes: 0, threshold: null },
        uptake: uptakeReport([{ provider: "claude-code", branch: "main", uptake: { state: "acted", turn: 1 } }], 50),
        refreshSeconds: 5,
        clock: { offsetMinutes: 0 },
      }),
    ).toContain('<section id="uptake"><h2>Did the handover work?</h2><p>Of the last 1 closed session(s)');
    // The page speaks the person's clock and its own colours: local time with the zone and how long ago, a legend.
    const page = pageHtml({
      continuity: c,
      providers: [],
      recovery: { stranded: 0, unfinished_closes: 0, threshold: null },
      uptake: uptakeReport([{ provider: "claude-code", branch: "main", uptake: { state: "ignored", turn: 1 } }], 50),
      refreshSeconds: 5,
      clock: { offsetMinutes: 90 },
      resume: { objective: ["A parser & <its> tests."], current_state: ["The tokenizer passes."] },
    });
    const local = new Date(AT.getTime() + 90 * 60_000).toISOString();
    expect(page).toContain(`As of ${local.slice(0, 10)} ${local.slice(11, 16)} UTC+01:30 `);
    expect(page).toContain('<ul class="legend">');
    expect(page).toContain("ignored: took turns, and acted on none");
    expect(page).not.toContain("<its>");
    const questions = Array.from({ length: 30 }, (_, i) => ({
      text: `question ${i + 1}?`,
      taskId: "none",
      opened: "2026-11-30",
    }));
    const blocked = continuityView({
      facts: facts({ questions: { path: "/r/q.md", open: questions as never, resolved: [], malformed: [] } }),
      open: [],
      closed: [],
      openProblems: [],
    });
    expect([blocked.blockers.length, blocked.blockers[19]!.number, blocked.blockers_more]).toEqual([20, 20, 10]);
    const none = continuityView({ facts: facts(), open: [], closed: [], openProblems: [] });
    expect([none.episodes.open_more, none.episodes.open_absent]).toEqual([0, "no episode is open in this checkout"]);
  });
});
