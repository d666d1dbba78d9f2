/** Everything a command needs to know about where it runs: git position, layer, ledger. */
import { locate, type Position } from "../repo/where.ts";
import { ledgerOf, type Ledger } from "../ledger/store.ts";
import { loadLayer, type Layer } from "./manifest.ts";
import { mark } from "../lib/trace.ts";

export type Here = { position: Position; layer: Layer; ledger: Ledger };

export async function here(cwd: string = process.cwd()): Promise<Here> {
  const position = await locate(cwd);
  mark("located");
  const layer = await loadLayer(position.worktree);
  mark("layer loaded");
  return { position, layer, ledger: ledgerOf(layer) };
}
