/**
 * A session hook always needs `git status`, and a git process costs ~10 ms here. The entry point
 * starts it for the repository the shim names before anything else loads, so it runs while the
 * binary reads its own code; the command then finds the answer waiting.
 */
import { remember } from "../lib/memo.ts";
import { git } from "./git.ts";
import { STATUS_ARGS } from "./status.ts";

export function prefetchStatus(root: string): void {
  remember(true);
  void git(root, STATUS_ARGS);
}
