// A handover's citations checked against the tree, told through the installed shims: the agent
// hands over citing files, the work goes on (edits, a deletion, a rename, lines moving), and the
// next session's briefing labels each citation; context, MCP and the HTTP API carry the same labels.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { captured, fire, fixture } from "../support/capture.ts";
import { ok } from "../support/layered.ts";
import { mcpAnswers } from "../support/mcp.ts";
import { startServe } from "../support/serve.ts";
import { Repo, scratch } from "../support/repo.ts";

const START = fixture("SessionStart-startup.json");
const END = fixture("SessionEnd-other.json");

const lines = (n: number, word = "line") => Array.from({ length: n }, (_, i) => `${word} ${i + 1}`).join("\n") + "\n";

function handover(repo: Repo, session: string, next: string, state = "Work in progress.") {
  ok(
    repo.mj(["handover"], {
      input: `# Objective\nThe parser.\n\n# Current State\n${state}\n\n# Next Action\n${next}\n`,
      env: { CLAUDE_CODE_SESSION_ID: session },
    }),
  );
}

const session = (repo: Repo, id: string) => fire(repo, "start", { ...START, session_id: id }).stdout;
const end = (repo: Repo, id: string) => fire(repo, "end", { ...END, session_id: id });

/** The briefing's list of citations: the lines after its heading, up to the first blank line. */
function citedList(briefing: string): string[] {
  const all = briefing.split("\n");
  const at = all.findIndex((l) => l.startsWith("What it cites, checked against the tree now"));
  if (at < 0) return [];
  const end = all.findIndex((l, i) => i > at && l.trim() === "");
  return all.slice(at, end < 0 ? undefined : end);
}

function newestHandover(repo: Repo): string {
  const dir = repo.path(".ai/local/state/handovers");
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .sort();
  return readFileSync(`${dir}/${names.at(-1)}`, "utf8");
}

describe("claims checked against the tree", () => {
  test("edited, deleted, renamed, a range that moved, a symbol gone, a path that never existed: the next briefing labels each, changed and deleted first", async () => {
    using repo = captured();
    repo.commit("files", "src/a.ts", lines(100));
    repo.commit("parse", "src/b.ts", "export function parseArgs() {}\n");
    repo.commit("gone", "src/c.ts", "soon gone\n");
    repo.commit("old name", "src/d.ts", lines(5, "kept"));
    repo.commit("scripts", "package.json", JSON.stringify({ scripts: { test: "bun test" } }));
    repo.commit("untouched", "src/keep.ts", "stays\n");
    session(repo, "cc-one");
    handover(
      repo,
      "cc-one",
      "Go on from `src/a.ts:40-58`, then `parseArgs` in `src/b.ts`; delete `src/c.ts`, rename `src/d.ts`, add `src/new.ts`. Leave src/keep.ts alone and run `npm test`, then `npm run lint`.",
    );
    // What the record keeps is the list of what it cites (a range with its text's fingerprint), nothing else of the tree.
    expect(newestHandover(repo)).toMatch(
      /\nclaims:\n  - path src\/a\.ts:40-58 @7\.[0-9a-f]{8}\.[0-9a-f]{12} \+[0-9a-f]{16}\n  - path src\/b\.ts \+[0-9a-f]{16}\n/,
    );
    end(repo, "cc-one");

    // The work goes on: ten lines leave the head of a.ts, b.ts loses parseArgs, c.ts goes, d.ts is renamed.
    writeFileSync(repo.path("src/a.ts"), lines(100).split("\n").slice(10).join("\n"));
    writeFileSync(repo.path("src/b.ts"), "export function readArgs() {}\n");
    repo.git("add", "src/a.ts", "src/b.ts");
    repo.git("rm", "-q", "src/c.ts");
    repo.git("mv", "src/d.ts", "src/e.ts");
    repo.git("commit", "-q", "-m", "the work goes on");
    writeFileSync(repo.path("src/b.ts"), "export function readArgs() {}\nexport const more = 1;\n");

    const briefing = session(repo, "cc-two");
    // The agent's own words first, then the list.
    expect(briefing).toContain("> Go on from `src/a.ts:40-58`");
    const list = citedList(briefing);
    expect(list[0]).toBe("What it cites, checked against the tree now (7 of 9 changed, gone or missing):");
    expect(list.slice(1)).toEqual([
      "- `src/c.ts`: deleted",
      "- `src/d.ts`: moved to src/e.ts",
      "- `src/b.ts`: changed since (1 commit, +2 −1 lines)",
      "- `src/a.ts:40-58`: changed since (1 commit, +0 −10 lines); lines 40-58 unchanged, now at lines 30-48",
      "- `src/new.ts`: never existed",
      "- `parseArgs in src/b.ts`: no longer in src/b.ts",
      "- `npm run lint`: package.json has no script lint now",
      "- `npm test`: a script of package.json (test)",
      "- … and 1 more, unchanged: `majordomus handover --claims` lists them",
    ]);

    // The same labels in context, over MCP and over the HTTP API.
    const context = ok(repo.mj(["context", "--budget-lines", "400"])).stdout;
    expect(context).toContain("- `src/d.ts`: moved to src/e.ts");
    expect(context).toContain("- `src/keep.ts`: unchanged");
    const [continuity] = mcpAnswers(repo.dir, ["continuity"]);
    expect(continuity).toContain("moved to src/e.ts");
    expect(continuity).toContain("lines 40-58 unchanged, now at lines 30-48");
    const served = await startServe(repo.dir);
    try {
      const api = (await (await served.fetch("/api/v1/continuity")).json()) as {
        handover: { claims: { labels: Array<{ cited: string; state: string }>; all_gone: boolean } };
      };
      expect(api.handover.claims.all_gone).toBe(false);
      expect(api.handover.claims.labels.map((l) => [l.cited, l.state])).toEqual([
        ["src/c.ts", "deleted"],
        ["src/d.ts", "moved"],
        ["src/b.ts", "changed"],
        ["src/a.ts:40-58", "lines_moved"],
        ["src/new.ts", "never_existed"],
        ["parseArgs in src/b.ts", "symbol_gone"],
        ["npm run lint", "no_script"],
        ["npm test", "script"],
        ["src/keep.ts", "unchanged"],
      ]);
    } finally {
      served.child.kill();
    }
  }, 300_000);

  test("a range edited inside is named as changed; a handover written at HEAD over an untouched tree is all unchanged", () => {
    using repo = captured();
    repo.commit("files", "src/a.ts", lines(30));
    session(repo, "cc-one");
    handover(repo, "cc-one", "Look at `src/a.ts:10-12` and src/a.ts:25.");
    const quiet = citedList(session(repo, "cc-two"));
    expect(quiet).toEqual([
      "What it cites, checked against the tree now (0 of 2 changed, gone or missing):",
      "- `src/a.ts:10-12`: unchanged",
      "- `src/a.ts:25`: unchanged",
    ]);
    writeFileSync(repo.path("src/a.ts"), lines(30).replace("line 11\n", "line eleven\n"));
    const changed = [
      "- `src/a.ts:10-12`: changed since (uncommitted, +1 −1 lines); lines 10-12 changed",
      "- `src/a.ts:25`: changed since (uncommitted, +1 −1 lines); line 25 unchanged",
    ];
    // The lines kept when the handover was written are counted from the file: git is not asked.
    const traced = fire(repo, "start", { ...START, session_id: "cc-three" }, { MAJORDOMUS_TRACE: "1" });
    expect(citedList(traced.stdout).slice(1)).toEqual(changed);
    expect(traced.stderr).not.toContain("git diff");
    // Without the cache, git counts them: the same labels.
    rmSync(repo.path(".ai/local/cache/claims"), { recursive: true });
    const asked = fire(repo, "start", { ...START, session_id: "cc-four" }, { MAJORDOMUS_TRACE: "1" });
    expect(citedList(asked.stdout).slice(1)).toEqual(changed);
    expect(asked.stderr).toContain("git diff --raw --numstat -M");
  }, 300_000);

  test("a handover citing nothing has no list; one whose every cited path is gone says so", () => {
    using repo = captured();
    repo.commit("files", "src/x.ts", "x\n");
    session(repo, "cc-one");
    handover(repo, "cc-one", "Think about the design before writing more code.");
    expect(newestHandover(repo)).not.toContain("claims:");
    const plain = session(repo, "cc-two");
    expect(plain).toContain("> Think about the design before writing more code.");
    expect(plain).not.toContain("What it cites");

    handover(repo, "cc-two", "Carry on in `src/x.ts` and `src/y.ts`.");
    repo.git("rm", "-q", "src/x.ts");
    repo.git("commit", "-q", "-m", "x goes");
    const list = citedList(session(repo, "cc-three"));
    expect(list).toEqual([
      "What it cites, checked against the tree now (2 of 2 changed, gone or missing):",
      "Every path it cites is gone from the tree: read it as the account of a tree that is no longer there.",
      "- `src/x.ts`: deleted",
      "- `src/y.ts`: never existed",
    ]);

    // Citing only files still to be made: each labelled, and the tree is not said to be gone.
    handover(repo, "cc-three", "Create `src/z.ts`, then `src/z.test.ts`.");
    expect(citedList(session(repo, "cc-four"))).toEqual([
      "What it cites, checked against the tree now (2 of 2 changed, gone or missing):",
      "- `src/z.ts`: never existed",
      "- `src/z.test.ts`: never existed",
    ]);
  }, 300_000);

  test("a cited path through a link that leads out of the checkout is never read: no fingerprint, and labelled as unreadable", () => {
    using repo = captured();
    using outside = new Repo();
    writeFileSync(outside.path("secret.txt"), "the person's own file\n");
    symlinkSync(outside.dir, repo.path("vendor"));
    session(repo, "cc-one");
    handover(repo, "cc-one", "Read `vendor/secret.txt` before going on.");
    const claims = /\nclaims:\n((?:  - .*\n)+)/.exec(newestHandover(repo))?.[1];
    expect(claims).toBe("  - path vendor/secret.txt\n");
    expect(citedList(session(repo, "cc-two")).slice(1)).toEqual([
      "- `vendor/secret.txt`: not a readable file now (a link, a folder, or too large)",
    ]);
  }, 300_000);

  test("a record whose commit is not a commit id (planted: `--output=…`) is labelled unchecked, and git is never handed it", () => {
    using repo = captured();
    repo.commit("real", "src/real.ts", "real\n");
    session(repo, "cc-one");
    handover(repo, "cc-one", "Carry on in `src/real.ts`.");
    // The file goes: only git can say where, so git would be asked.
    rmSync(repo.path("src/real.ts"));
    const trap = repo.path("written-by-git");
    const dir = repo.path(".ai/local/state/handovers");
    const file = readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!;
    const text = readFileSync(`${dir}/${file}`, "utf8").replace(
      /\nhead: "?[0-9a-f]+"?\n/,
      `\nhead: "--output=${trap}"\n`,
    );
    writeFileSync(`${dir}/${file}`, text);
    const briefing = session(repo, "cc-two");
    expect(briefing).toContain("Its citations could not be checked: the record names no commit git can place.");
    expect(readdirSync(repo.dir)).not.toContain("written-by-git");
  }, 300_000);

  test("a link planted where the line maps are kept is never written through: the count falls back to git", () => {
    using repo = captured();
    repo.commit("files", "src/a.ts", lines(20));
    const outside = scratch("majordomus-outside-");
    try {
      mkdirSync(repo.path(".ai/local/cache"), { recursive: true });
      symlinkSync(outside, repo.path(".ai/local/cache/claims"));
      session(repo, "cc-one");
      handover(repo, "cc-one", "Go on in `src/a.ts`.");
      expect(readdirSync(outside)).toEqual([]);
      writeFileSync(repo.path("src/a.ts"), lines(22));
      expect(citedList(session(repo, "cc-two")).join("\n")).toContain(
        "`src/a.ts`: changed since (uncommitted, +2 −0 lines)",
      );
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 300_000);
});
