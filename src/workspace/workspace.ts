/**
 * One command's workspace: git position, layer, ledger, episode, own records and the command's instant, built once
 * and handed down.
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
  /** Our episode's id (not the client's session), stamped on every ledger line. */
  episodeId?: string;
  episode?: OpenEpisode;
  own: Own;
  at: Date;
  /** Read once per workspace; `strict` reads again, refusing what a lenient read lets pass. */
  policy: (options?: { strict?: boolean }) => Promise<LoadedPolicy>;
};

/**
 * `readOnly`: writes nothing, so it need not know its episode or ensure git ignores the local half. `startStatus`:
 * start `git status` as soon as the checkout is found. `hook`: a client's hook call (session/attribution.ts).
 */
export type WorkspaceOptions = {
  readOnly?: boolean;
  startStatus?: { answerFile?: string; tracked?: boolean };
  hook?: boolean;
};

const identityFields = (identity: Identity) => ({ repositoryId: identity.id, repositoryAliases: identity.aliases });

export function inEpisode(ws: Workspace, episode: OpenEpisode | undefined): Workspace {
  return { ...ws, episode, episodeId: episode?.session_id };
}

export function ownOf(layer: Layer, position: Pick<Position, "worktree">): Own {
  try {
    return { recordsDir: `${relative(position.worktree, sectionPath(layer, "sessions")).replace(/\\/g, "/")}/` };
  } catch {
    return {};
  }
}

/** Where a command runs; without `providerSession` the episode is found from the environment. */
export async function workspace(
  cwd: string = process.cwd(),
  providerSession?: string,
  options: WorkspaceOptions = {},
): Promise<Workspace> {
  const position = await locate(cwd);
  mark("located");
  if (options.startStatus)
    (await import("../repo/prefetch.ts")).startStatus(
      position,
      options.startStatus.answerFile,
      options.startStatus.tracked,
    );
  const layer = await loadGuardedLayer(position.worktree);
  mark("layer loaded");
  if (!options.readOnly) await requireIgnored(position, layer);
  if (!options.readOnly && position.repositoryId === position.commonDir)
    Object.assign(position, identityFields(repositoryIdentity(position.commonDir, { create: true })));
  const episode = options.readOnly
    ? undefined
    : await attributedEpisode(layer, position, providerSession, options.hook);
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
