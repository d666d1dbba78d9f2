/**
 * The one right to close an episode: a file created once, with link(2), in
 * `<state>/sessions-closing/`. However many end events arrive, exactly one caller ever gets it; a
 * caller that does not must write nothing. Its own module, so an end hook takes the claim without
 * loading what the close itself needs.
 */
import { join } from "node:path";
import { stamp } from "../lib/clock.ts";
import { ensureDir, publishNew } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";

export function claimClose(here: Workspace, sessionId: string): boolean {
  const claims = join(sectionPath(here.layer, "state"), "sessions-closing");
  ensureDir(claims, 0o700);
  return publishNew(join(claims, `${sessionId}.claim`), `${process.pid} ${stamp()}\n`, 0o600, { durable: false });
}
