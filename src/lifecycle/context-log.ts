/** Failures around working contexts are kept beside them; `doctor` reports a non-empty log. */
import { join } from "node:path";
import { appendText, ensureDir } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";

export function logContextFailure(ws: Workspace, line: string): void {
  try {
    const dir = sectionPath(ws.layer, "session_contexts");
    ensureDir(dir, 0o700);
    appendText(join(dir, ".session-context.log"), `${line}\n`);
  } catch {
    // nowhere left to say it but stderr, which the caller already used
  }
}
