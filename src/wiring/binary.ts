/**
 * The binary the shims run: the one the person ran `capture install` with, recorded by its absolute
 * path in the git-ignored local half (wiring/shims.ts BINARY_RECORD). A copy inside the repository
 * is the person's only when git neither tracks it nor would add it (an ignored `.majordomus/bin/`);
 * a tracked one is a stranger's program and is never recorded. Run from the source tree, nothing is
 * recorded: the shims then use majordomus from the person's PATH.
 */
import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ensureDir, readIfExists, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { compiled } from "../lib/runtime.ts";
import { git } from "../repo/git.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { BINARY_RECORD } from "./shims.ts";
import type { Line } from "./report.ts";

/** What to record, or why nothing is: a pure answer from what was gathered. */
export type BinaryPlan = { record: string } | { record?: undefined; why: string; refused?: string };

export async function planBinary(
  ws: Workspace,
  executable = compiled() ? process.execPath : undefined,
): Promise<BinaryPlan> {
  if (executable === undefined) return { why: "run from the source tree: the shims run majordomus from your PATH" };
  const bin = realpathSync(executable);
  const root = realpathSync(ws.position.worktree);
  if (!bin.startsWith(root + sep)) return { record: bin };
  const rel = relative(root, bin);
  const [tracked, ignored] = await Promise.all([
    git(root, ["ls-files", "--error-unmatch", "--", rel]),
    git(root, ["check-ignore", "-q", "--", rel]),
  ]);
  if (tracked.ok)
    return {
      refused: bin,
      why: `${rel} is tracked by git: a program anyone can commit is a stranger's, and the shims never run it`,
    };
  if (!ignored.ok)
    return {
      refused: bin,
      why: `${rel} is inside the repository and not ignored by git; add its folder to .gitignore (e.g. \`.majordomus/\`) and run capture install with it again`,
    };
  return { record: bin };
}

/** Write the record the plan names (all of it, or nothing), as an install line. */
export function commitBinary(ws: Workspace, plan: BinaryPlan): Line {
  const path = join(ws.position.worktree, BINARY_RECORD);
  if (plan.record === undefined) {
    // A record that names the copy now refused (tracked since) goes: the shims must not run it.
    if (plan.refused !== undefined && readIfExists(path)?.trim() === plan.refused) {
      unlinkQuiet(path);
      return { path: BINARY_RECORD, action: "removed", note: plan.why };
    }
    return { path: BINARY_RECORD, action: "not written", note: plan.why };
  }
  if (readIfExists(path) === `${plan.record}\n`)
    return { path: BINARY_RECORD, action: "already present", note: plan.record };
  ensureDir(join(ws.position.worktree, ".ai", "local", "state"), 0o700);
  writeFileAtomic(path, `${plan.record}\n`, 0o600);
  return { path: BINARY_RECORD, action: "written", note: `the shims run ${plan.record}` };
}
