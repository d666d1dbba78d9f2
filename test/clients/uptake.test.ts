// Uptake, measured with the real clients against their mock APIs: each session is handed an
// authored Next Action naming `src/ini.ts` and a command; the mock model then edits that file and
// runs that command, edits another file, or runs in a session that keeps no transcript. The closed
// record says acted, ignored or not provable with its figures, `report` counts them and the page
// draws them (Claude Code 2.1.332); Codex 0.171.0 and Gemini 0.61.0 are read from their own files.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { closedTexts, ok } from "../support/layered.ts";
import { startServe } from "../support/serve.ts";
import { ClaudeRig } from "./rig.ts";
import type { MockOptions, ToolCall } from "./mock-anthropic.ts";
import { CodexRig } from "./codex-rig.ts";
import { GeminiRig } from "./gemini-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

const NEXT = "Wire the tokenizer into src/ini.ts, then check `git status --short`.";
/** Codex edits files with apply_patch through its shell tool. */
const PATCH =
  "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/ini.ts\n+export const tokenizer = 1;\n*** End Patch\nEOF";
const HANDOVER = `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${NEXT}\n`;

/** The model's answers for one session, one tool call per request in order, offered tools permitting; then text. */
function calls(...steps: Array<(project: string) => ToolCall>): (project: string) => MockOptions["tool"] {
  return (project) => {
    let i = 0;
    return (request) => {
      if (i >= steps.length || !JSON.stringify(request.body?.tools ?? []).includes('"Write"')) return undefined;
      return steps[i++]!(project);
    };
  };
}
const write = (rel: string) => (project: string) => ({
  name: "Write",
  input: { file_path: `${project}/${rel}`, content: "export const tokenizer = 1;\n" },
});
const run = (command: string) => () => ({ name: "Bash", input: { command, description: "check" } });

/** Each closed record's `uptake`, oldest record first. */
const uptakes = (repo: ClaudeRig["repo"]): Array<Record<string, unknown> | undefined> =>
  closedTexts(repo).map((t) => parse(t.split("---\n")[1]!).uptake);

describe.skipIf(!ENABLED)("uptake with the real clients against their mock APIs", () => {
  test(
    "acted (the named file edited and the command run), ignored (another file edited), not provable (no transcript); report counts them",
    async () => {
      let answer: MockOptions["tool"];
      using rig = new ClaudeRig({ mock: { tool: (request, i) => answer?.(request, i) } });
      rig.trust();
      const repo = rig.repo;
      const session = async (answers: ReturnType<typeof calls>, extra: string[] = []) => {
        ok(repo.mj(["handover"], { input: HANDOVER }));
        answer = answers(rig.project);
        const r = await rig.run(["-p", "go on", "--allowedTools", "Write", "Bash", ...extra]);
        expect(r.status).toBe(0);
      };
      await session(calls(write("src/ini.ts"), run("git status --short")));
      await session(calls(write("src/other.ts")));
      await session(calls(write("src/ini.ts")), ["--no-session-persistence"]);

      const [acted, ignored, unprovable] = uptakes(repo);
      expect(acted).toMatchObject({
        state: "acted",
        named: ["src/ini.ts", "git status --short"],
        acted_on: ["src/ini.ts", "git status --short"],
        turn: 1,
        tool_calls_before: 0,
        rereads: 0,
      });
      expect(acted!.handed).toMatch(/^\.ai\/local\/state\/handovers\/.+\.md$/);
      expect(ignored).toMatchObject({ state: "ignored", acted_on: [], rereads: 0 });
      expect(ignored!.turn).toBeUndefined();
      expect(unprovable).toMatchObject({ state: "not_provable", acted_on: [] });
      expect(String(unprovable!.cause)).toContain("transcript");
      // The record says it in words too.
      const sessions = repo.path(".ai/repo/sessions");
      const first = readdirSync(sessions)
        .filter((f) => f.endsWith(".md") && f !== "README.md")
        .sort()[0]!;
      expect(readFileSync(`${sessions}/${first}`, "utf8")).toContain(
        "acted (2 of 2 named; first in turn 1, after 0 tool call(s)",
      );

      // report counts them, per client and per branch; the page draws them.
      const report = JSON.parse(ok(repo.mj(["report", "--json"])).stdout);
      expect(report).toMatchObject({ sessions: 3, handed: 3 });
      const row = { sessions: 3, handed: 3, acted: 1, partly: 0, ignored: 1, not_provable: 1, median_turn: 1 };
      expect(report.by_client).toEqual([{ key: "claude-code", ...row }]);
      expect(report.by_branch).toEqual([{ key: "main", ...row }]);
      expect(ok(repo.mj(["report"])).stdout).toContain("in the last 3 closed session(s): 3 were handed one.");
      const served = await startServe(repo.dir);
      try {
        const html = await (await served.fetch("/")).text();
        expect(html).toContain(
          "<strong>claude-code</strong>: 3 of 3 handed one; 1 acted, 0 partly, 1 ignored, 1 not provable; " +
            "median turn to the first action 1",
        );
      } finally {
        served.child.kill();
      }
    },
    TIMEOUT,
  );

  test(
    "a session whose model never answered (the API refuses every request) is not provable, never ignored, and closes",
    async () => {
      using rig = new ClaudeRig({
        mock: { error: () => ({ status: 400, type: "invalid_request_error", message: "the model is not available" }) },
      });
      rig.trust();
      ok(rig.repo.mj(["handover"], { input: HANDOVER }));
      const r = await rig.run(["-p", "go on"]);
      expect(r.timedOut).toBe(false);
      const [only] = uptakes(rig.repo);
      expect(only).toMatchObject({ state: "not_provable", acted_on: [] });
      expect(String(only!.cause)).toContain("no tool call");
      expect(closedTexts(rig.repo)).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    "Codex and Gemini: a session that writes the named file and runs the named command acted, read from their own transcripts",
    async () => {
      using codex = new CodexRig({
        mock: {
          call: (_r, i) =>
            i === 0
              ? { name: "exec_command", arguments: { cmd: PATCH } }
              : i === 1
                ? { name: "exec_command", arguments: { cmd: "git status --short" } }
                : undefined,
        },
      });
      codex.trust();
      ok(codex.repo.mj(["handover"], { input: HANDOVER }));
      expect((await codex.run(["go on"])).status).toBe(0);
      expect(uptakes(codex.repo)[0]).toMatchObject({
        state: "acted",
        acted_on: ["src/ini.ts", "git status --short"],
        turn: 1,
      });

      let n = 0;
      using gemini = new GeminiRig({
        mock: {
          call: () =>
            n++ === 0
              ? { name: "write_file", args: { file_path: "src/ini.ts", content: "export const tokenizer = 1;\n" } }
              : n === 2
                ? { name: "run_shell_command", args: { command: "git status --short", description: "check" } }
                : undefined,
        },
      });
      gemini.trust();
      ok(gemini.repo.mj(["handover"], { input: HANDOVER }));
      expect((await gemini.run(["--yolo", "-p", "go on"])).status).toBe(0);
      expect(uptakes(gemini.repo)[0]).toMatchObject({
        state: "acted",
        acted_on: ["src/ini.ts", "git status --short"],
        turn: 1,
        tool_calls_before: 0,
      });
    },
    TIMEOUT,
  );

  test(
    "what happened since reaches the next session: one that acted on part of a handed Next Action and left no handover of its own is named in the next request, by whom and what is left; one that did all of it turns the Next Action into history",
    async () => {
      let answer: MockOptions["tool"];
      using rig = new ClaudeRig({ mock: { tool: (request, i) => answer?.(request, i) } });
      rig.trust();
      const repo = rig.repo;
      ok(repo.mj(["handover"], { input: HANDOVER }));
      // Session 2 writes the named file and ends; it writes no handover of its own.
      answer = calls(write("src/ini.ts"))(rig.project);
      expect((await rig.run(["-p", "go on", "--allowedTools", "Write", "Bash"])).status).toBe(0);
      expect(uptakes(repo).at(-1)).toMatchObject({ state: "partly", acted_on: ["src/ini.ts"] });
      // Session 3 is told: which session and client, what it did, what is left, what it left behind.
      answer = undefined;
      expect((await rig.run(["-p", "what next?"])).status).toBe(0);
      const third = rig.mock.messages().at(-1)!.text;
      expect(third).toMatch(
        /Since it was written, session s-\S+ \(claude-code, closed (just now|\d+m ago)\) acted on it: src\/ini\.ts of the 2 thing\(s\) it names; not yet: "git status --short"\. Its record: \.ai\/repo\/sessions\/\S+\.md; its own handover: \.ai\/local\/state\/handovers\/\S+\.md\./,
      );
      expect(third).toContain(`Its Next Action, in its author's own words, quoted:\n> ${NEXT}`);
      // Its account of where things stood, in its words, beside the Next Action.
      expect(third).toContain("Where it stands, in its author's own words, quoted:\n> Objective:\n> A parser.");
      expect(third).toContain("> Current State:\n> The tokenizer is done.");

      // Session 4 runs the rest: every step done, the Next Action is history now.
      answer = calls(run("git status --short"))(rig.project);
      expect((await rig.run(["-p", "go on", "--allowedTools", "Write", "Bash"])).status).toBe(0);
      answer = undefined;
      expect((await rig.run(["-p", "what next?"])).status).toBe(0);
      const fifth = rig.mock.messages().at(-1)!.text;
      expect(fifth).toContain("every step of which was acted on since: what was asked, quoted as history");
      expect(fifth).toMatch(
        /Since it was written, 2 sessions, the last session s-\S+ \(claude-code, closed [^)]+\), acted on it: src\/ini\.ts, "git status --short" of the 2 thing\(s\) it names\./,
      );
    },
    TIMEOUT,
  );
});
