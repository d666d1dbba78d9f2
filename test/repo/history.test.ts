// One walk since a commit answers ancestry, the commits since, and the files each changed: it must
// agree with git's narrower questions (merge-base, a path-limited log) in a real repository,
// including past its cap, where those narrower questions answer instead.
import { describe, expect, test } from "bun:test";
import { locate } from "../../src/repo/where.ts";
import { ancestry, historySince, HISTORY_CAP, parseHistory } from "../../src/repo/history.ts";
import { commitsSince } from "../../src/repo/status.ts";
import { countsOf } from "../../src/records/claims-check.ts";
import { Repo } from "../support/repo.ts";

const gitSays = (repo: Repo, ...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: repo.dir });

describe("the walk since a commit", () => {
  test("an ancestor: the commits since, newest first, each with its files, as git log lists them", async () => {
    using repo = Repo.init();
    const from = repo.commit("base", "a.ts");
    repo.commit("touch a", "a.ts", "a2\n");
    repo.commit("touch b", "b.ts");
    repo.commit("touch a again", "a.ts", "a3\n");
    const position = await locate(repo.dir);
    const history = await historySince(position, from);
    expect(history).toMatchObject({ ok: true, ancestor: true, complete: true });
    expect(history.since.map((c) => c.line)).toEqual(repo.git("log", "--format=%h %s", `${from}..HEAD`).split("\n"));
    expect(history.since.map((c) => c.files)).toEqual([["a.ts"], ["b.ts"], ["a.ts"]]);
    expect(countsOf(history.since, new Set(["a.ts", "b.ts", "c.ts"]))).toEqual(
      new Map([
        ["a.ts", 2],
        ["b.ts", 1],
      ]),
    );
    expect(await commitsSince(position, from)).toEqual(history.since.map((c) => c.line));
  });

  test("a commit off this history (a reset) is not an ancestor, as merge-base says", async () => {
    using repo = Repo.init();
    repo.commit("base");
    const gone = repo.commit("later");
    repo.git("reset", "-q", "--hard", "HEAD~1");
    repo.commit("other");
    const position = await locate(repo.dir);
    expect(gitSays(repo, "merge-base", "--is-ancestor", gone, "HEAD").exitCode).toBe(1);
    expect(await ancestry(position, gone)).toBe(false);
    expect(await commitsSince(position, gone)).toEqual([]);
  });

  test("a commit git does not have, or no commit id at all, is unplaced: never an option to git", async () => {
    using repo = Repo.init();
    repo.commit("base");
    const position = await locate(repo.dir);
    expect(await ancestry(position, "0123456789abcdef0123456789abcdef01234567")).toBeUndefined();
    expect(await historySince(position, "--output=planted")).toMatchObject({ ok: false });
    expect(gitSays(repo, "status", "--porcelain").stdout.toString()).toBe("");
  });

  test("past the cap the walk is incomplete and the narrower questions answer, the same as git's", async () => {
    using repo = Repo.init();
    const from = repo.commit("base");
    for (let i = 0; i <= HISTORY_CAP; i++) repo.commit(`c${i}`, i % 2 ? "odd.txt" : "even.txt");
    const position = await locate(repo.dir);
    const history = await historySince(position, from);
    expect(history.complete).toBe(false);
    expect(history.ancestor).toBeUndefined();
    expect(await ancestry(position, from)).toBe(true);
    expect((await commitsSince(position, from)).length).toBe(HISTORY_CAP + 1);
  });

  test("read back: a file whose name opens like a commit line is still a file", () => {
    const out = "\x01>abc1234 subject\n\n@odd.ts\n>x.ts\n\x01>def5678 merge\n\n";
    expect(parseHistory(out)).toEqual({
      since: [
        { line: "abc1234 subject", files: ["@odd.ts", ">x.ts"] },
        { line: "def5678 merge", files: [] },
      ],
      complete: true,
      ancestor: true,
    });
    expect(parseHistory("\x01>a one\n\x01<b two\n").ancestor).toBe(false);
  });
});

describe("a walk of commits only", () => {
  test("a label needs no files: the walk lists none, answers ancestry as the walk with files does, and takes that walk when one was asked for", async () => {
    using repo = Repo.init();
    const from = repo.commit("base", "a.ts");
    repo.commit("touch a", "a.ts", "a2\n");
    repo.commit("touch b", "b.ts");
    const bare = await locate(repo.dir);
    const commits = await historySince(bare, from, "commits");
    expect(commits).toMatchObject({ ok: true, ancestor: true, complete: true });
    expect(commits.since.map((c) => c.line)).toEqual(repo.git("log", "--format=%h %s", `${from}..HEAD`).split("\n"));
    expect(commits.since.map((c) => c.files)).toEqual([[], []]);
    // The files are read when a reader needs them, from a walk of their own.
    const files = await historySince(bare, from, "files");
    expect(files.since.map((c) => c.files)).toEqual([["b.ts"], ["a.ts"]]);
    // Once a walk with files was asked for, a reader of commits takes it: one git process for both.
    const warm = await locate(repo.dir);
    await historySince(warm, from, "files");
    expect((await historySince(warm, from, "commits")).since.map((c) => c.files)).toEqual([["b.ts"], ["a.ts"]]);
    // Off this history, both say so alike.
    const gone = repo.git("rev-parse", "HEAD");
    repo.git("reset", "-q", "--hard", "HEAD~2");
    repo.commit("other", "c.ts");
    const after = await locate(repo.dir);
    expect(await ancestry(after, gone, "commits")).toBe(false);
    expect(await ancestry(await locate(repo.dir), gone, "files")).toBe(false);
  });
});
