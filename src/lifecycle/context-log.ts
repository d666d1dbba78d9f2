/** Failures around working contexts are kept beside them; `doctor` reports a non-empty log. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDir } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";

export function logContextFailure(here: Workspace, line: string): void {
  try {
    const dir = sectionPath(here.layer, "session_contexts");
    ensureDir(dir, 0o700);
    writeFileSync(join(dir, ".session-context.log"), `${line}\n`, { flag: "a", mode: 0o600 });
  } catch {
    // nowhere left to say it but stderr, which the caller already used
  }
}
