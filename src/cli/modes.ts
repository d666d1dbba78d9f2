/** A hook's modes, read from the environment here at the CLI's edge and handed down as arguments. */
import { env } from "../lib/env.ts";
import type { WorkMode } from "../hooks/handoff.ts";

/** Where the hook's derived work is done: handed to a worker, or (MAJORDOMUS_HOOK_WORK=foreground) in the hook. */
export function workMode(): WorkMode {
  return env("MAJORDOMUS_HOOK_WORK") === "foreground" ? "foreground" : "hand-off";
}
