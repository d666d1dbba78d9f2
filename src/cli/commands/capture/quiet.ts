/**
 * A hook in a repository majordomus does not supervise (its layer was never created, or was removed) must not make the
 * client report an error on every event: it says so once on stderr and succeeds.
 */
import { isFailure } from "../../../lib/failure.ts";
import { log } from "../../../lib/log.ts";
import { workspace, type Workspace, type WorkspaceOptions } from "../../../workspace/workspace.ts";

export async function workspaceForHook(
  root: string,
  providerSession: string | undefined,
  options: WorkspaceOptions = {},
): Promise<Workspace | undefined> {
  try {
    return await workspace(root, providerSession, options);
  } catch (err) {
    // No layer, not a repository, or a layer that is not safe to use (a symbolic link in it): say so, record nothing, let the client go on.
    if (!isFailure(err) || (err.kind !== "missing" && err.kind !== "usage" && err.kind !== "refused")) throw err;
    log.warn(`${err.message}; this event was not recorded`);
    return undefined;
  }
}
