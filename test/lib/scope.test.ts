// A task's scope: folders, files and globs, as `check` holds changed files to them.
import { describe, expect, test } from "bun:test";
import { inScope, scopeParts } from "../../src/lib/scope.ts";
import { layered, ok } from "../support/layered.ts";

describe("scope", () => {
  test("folders hold what is below them; globs match with Bun's Glob; braces keep their commas", () => {
    expect(scopeParts("src/**/*.ts, docs/*.{md,txt},test")).toEqual(["src/**/*.ts", "docs/*.{md,txt}", "test"]);
    const scope = ["src/**/*.ts", "docs/*.{md,txt}", "test"];
    for (const f of ["src/a.ts", "src/deep/er/b.ts", "docs/x.md", "docs/y.txt", "test/z.js", "test"])
      expect(`${f} ${inScope(scope, f)}`).toBe(`${f} true`);
    for (const f of ["src/a.js", "docs/deep/x.md", "docs/x.pdf", "testing/z.js", "srcx/a.ts"])
      expect(`${f} ${inScope(scope, f)}`).toBe(`${f} false`);
    expect(inScope(["."], "anything/at/all")).toBe(true);
  });

  test("start --scope with a glob, then check: a change the glob matches passes, one it does not fails", () => {
    using repo = layered();
    repo.commit("base", "src/keep.ts", "export {};\n");
    ok(repo.mj(["start", "typed sources only", "--scope", "src/**/*.ts"]));
    repo.commit("typed", "src/deep/a.ts", "export const a = 1;\n");
    expect(repo.mj(["check"]).status).toBe(0);
    repo.commit("untyped", "src/deep/b.js", "module.exports = 1;\n");
    const outside = repo.mj(["check"]);
    expect(outside.status).not.toBe(0);
    expect(outside.stdout).toContain("src/deep/b.js");
    expect(outside.stdout).not.toContain("src/deep/a.ts,");
  });
});
