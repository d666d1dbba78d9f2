/**
 * The binary the shims run: the one `capture install` was run with, recorded by path in the local half. Never a copy
 * inside the repository: a checkout can replace any file there. From the source tree nothing is recorded, and the
 * shims use the PATH's.
 */
import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ensureDir, readIfExists, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { compiled } from "../lib/runtime.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { BINARY_RECORD } from "./shims.ts";
import type { Line } from "./report.ts";
import { Failure } from "../lib/failure.ts";
import { onPath } from "../lib/path.ts";

export type BinaryPlan = { record: string } | { record?: undefined; why: string; refused?: string };

export function planBinary(ws: Workspace, executable = compiled() ? process.execPath : undefined): BinaryPlan {
  if (executable === undefined) return { why: "run from the source tree: the shims run majordomus from your PATH" };
  const bin = realpathSync(executable);
  const root = realpathSync(ws.position.worktree);
  if (!bin.startsWith(root + sep)) return { record: bin };
  return {
    refused: bin,
    why:
      `${relative(root, bin)} is inside the repository: a checkout can replace any file there ` +
      `(git overwrites ignored ones without asking), so the shims never run a program inside ` +
      `it; install majordomus outside the repository (e.g. \`~/.local/bin\`) and run its ` +
      `capture install`,
  };
}

/** An install whose shims would find no majordomus to run (none outside the repository) stops before it writes. */
export function refuseUnrunnable(ws: Workspace): void {
  const plan = planBinary(ws);
  if (plan.record !== undefined || plan.refused === undefined) return;
  if (onPath("majordomus", { outside: ws.position.worktree }) !== undefined) return;
  throw new Failure(
    "refused",
    `nothing was written: ${plan.why}`,
    "e.g. `sh install.sh --from <release> --into ~/.local/bin`, or copy it there",
  );
}

export function commitBinary(ws: Workspace, plan: BinaryPlan): Line {
  const path = join(ws.position.worktree, BINARY_RECORD);
  if (plan.record === undefined) {
    // A record naming a copy now refused goes: the shims must not run it.
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
