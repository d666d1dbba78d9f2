/** Everything a command needs to know about where it runs: git position, layer, ledger. */
import { locate, type Position } from "../repo/where.ts";
import { ledgerOf, type Ledger } from "../ledger/store.ts";
import { loadLayer, type Layer } from "./manifest.ts";
import { mark } from "../lib/trace.ts";
import { attributedEpisode } from "../session/attribution.ts";

export type Here = {
  position: Position;
  layer: Layer;
  ledger: Ledger;
  /** The episode this process belongs to (stamped on every ledger line), if one is open. */
  session?: string;
};

/**
 * Where a command runs. `providerSession` is the client session a hook names; without it the
 * episode is found from the environment (see session/attribution.ts).
 */
export async function here(cwd: string = process.cwd(), providerSession?: string, options: { readOnly?: boolean } = {}): Promise<Here> {
  const position = await locate(cwd);
  mark("located");
  const layer = await loadLayer(position.worktree);
  mark("layer loaded");
  // A command that writes nothing stamps nothing: it need not know its episode.
  const episode = options.readOnly ? undefined : await attributedEpisode(layer, position, providerSession);
  return { position, layer, ledger: ledgerOf(layer), session: episode?.session_id };
}
