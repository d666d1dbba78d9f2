/**
 * The workspace of one command: where it runs (git position, layer, ledger), the episode it
 * belongs to, the paths of majordomus's own records, and the command's one instant. Built once by
 * the command and handed down; nothing below asks these questions a second time.
 */
import { relative } from "node:path";
import { now } from "../lib/clock.ts";
import { mark } from "../lib/trace.ts";
import { locate, type Position } from "../repo/where.ts";
import { repositoryIdentity, type Identity } from "../repo/identity.ts";
import type { Own } from "../repo/status.ts";
import { ledgerOf, type Ledger } from "../ledger/store.ts";
import { attributedEpisode } from "../session/attribution.ts";
import type { OpenEpisode } from "../session/store.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { loadGuardedLayer } from "../layer/guard.ts";
import { requireIgnored } from "./private.ts";
import { loadPolicy, type LoadedPolicy } from "../policy/index.ts";

export type Workspace = {
  position: Position;
  layer: Layer;
  ledger: Ledger;
  /** The id of the episode (ours, not the client's session) this process belongs to, stamped on every ledger line, if one is open. */
  episodeId?: string;
  /** That episode as it was read when the command started (read once). */
  episode?: OpenEpisode;
  /** majordomus's own records, which git's view of the worker's changes leaves out. */
  own: Own;
  /** The command's instant: every stamp and age of this command. */
  at: Date;
  /**
   * The policy, read once per workspace (a failure to read it is kept too: every caller gets the
   * same answer). `strict` reads it again, refusing what a lenient read lets pass (doctor, `policy`).
   */
  policy: (options?: { strict?: boolean }) => Promise<LoadedPolicy>;
};

/**
 * `readOnly`: a command that writes nothing (it need not know its episode, nor make sure git
 * ignores the local half). `startStatus`: start on `git status` as soon as the checkout is found,
 * from a shim's answer file when it names one (the start hook).
 */
export type WorkspaceOptions = { readOnly?: boolean; startStatus?: { answerFile?: string; tracked?: boolean } };

const identityFields = (identity: Identity) => ({ repositoryId: identity.id, repositoryAliases: identity.aliases });

/** The same workspace in `episode` (every line it appends is stamped with that episode's id). */
export function inEpisode(ws: Workspace, episode: OpenEpisode | undefined): Workspace {
  return { ...ws, episode, episodeId: episode?.session_id };
}

/** The shared records folder, repository-relative with a trailing `/` (none when undeclared). */
export function ownOf(layer: Layer, position: Pick<Position, "worktree">): Own {
  try {
    return { recordsDir: `${relative(position.worktree, sectionPath(layer, "sessions")).replace(/\\/g, "/")}/` };
  } catch {
    return {};
  }
}

/**
 * Where a command runs. `providerSession` is the client session a hook names; without it the
 * episode is found from the environment (see session/attribution.ts).
 */
export async function workspace(
  cwd: string = process.cwd(),
  providerSession?: string,
  options: WorkspaceOptions = {},
): Promise<Workspace> {
  const position = await locate(cwd);
  mark("located");
  // The start hook's briefing needs git status: it starts now, while the layer is read.
  if (options.startStatus)
    (await import("../repo/prefetch.ts")).startStatus(
      position,
      options.startStatus.answerFile,
      options.startStatus.tracked,
    );
  const layer = await loadGuardedLayer(position.worktree);
  mark("layer loaded");
  // A command that may write makes sure git ignores the local half first.
  if (!options.readOnly) await requireIgnored(position, layer);
  // A command that may write records gives a supervised repository its identity, once.
  if (!options.readOnly && position.repositoryId === position.commonDir)
    Object.assign(position, identityFields(repositoryIdentity(position.commonDir, { create: true })));
  // A command that writes nothing stamps nothing: it need not know its episode.
  const episode = options.readOnly ? undefined : await attributedEpisode(layer, position, providerSession);
  let policy: Promise<LoadedPolicy> | undefined;
  return {
    position,
    layer,
    ledger: ledgerOf(layer),
    episodeId: episode?.session_id,
    episode,
    own: ownOf(layer, position),
    at: now(),
    policy: (read = {}) => (read.strict ? loadPolicy(layer, { strict: true }) : (policy ??= loadPolicy(layer))),
  };
}
