// The changed paths a record keeps: every path while they are few; past the bound, folders as
// `folder/`, the most precise ones that are enough.
import { describe, expect, test } from "bun:test";
import { RECORDED_PATHS_MAX, recordedPaths } from "../../src/lib/changed-paths.ts";

const many = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(5, "0")}.js`);

describe("recordedPaths", () => {
  test("up to the bound, every path as it is, sorted and once", () => {
    expect(recordedPaths(["src/b.ts", "README.md", "src/a.ts", "src/a.ts"])).toEqual([
      "README.md",
      "src/a.ts",
      "src/b.ts",
    ]);
    const exactly = many("src/f", RECORDED_PATHS_MAX);
    expect(recordedPaths(exactly)).toEqual(exactly);
  });

  test("20,000 untracked files under node_modules/ become node_modules/, and the real changes stay listed", () => {
    const paths = [...many("node_modules/pkg/lib/f", 20_000), "src/a.ts", "src/b.ts", "README.md"];
    expect(recordedPaths(paths)).toEqual(["README.md", "node_modules/pkg/lib/", "src/a.ts", "src/b.ts"]);
  });

  test("the deepest folder that is enough is the one collapsed", () => {
    const paths = [...many("src/gen/out/f", 300), ...many("src/app/f", 50)];
    const kept = recordedPaths(paths);
    expect(kept).toContain("src/gen/out/");
    expect(kept.filter((p) => p.startsWith("src/app/")).length).toBe(50);
    expect(kept.length).toBeLessThanOrEqual(RECORDED_PATHS_MAX);
  });

  test("when no single folder is enough, the largest go first, until it fits", () => {
    const paths = Array.from({ length: 40 }, (_, d) => many(`pkg${d}/src/f`, 20)).flat();
    const kept = recordedPaths(paths);
    expect(kept.length).toBeLessThanOrEqual(RECORDED_PATHS_MAX);
    // Every path is still accounted for: listed, or under a folder that is.
    for (const p of paths) expect(kept.some((k) => k === p || (k.endsWith("/") && p.startsWith(k)))).toBe(true);
  });

  test("files at the root alone are never dropped, even past the bound", () => {
    const paths = many("f", RECORDED_PATHS_MAX + 5);
    expect(recordedPaths(paths)).toEqual(paths);
  });
});
