/**
 * `majordomus init [--extend]`: the `.ai/` layer from the embedded skeleton. Plain init refuses an existing `.ai/`;
 * --extend adds only what is missing.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { listAssets } from "../assets/index.ts";
import { Failure, errnoCode } from "../lib/failure.ts";
import { appendText, ensureDir, exists, isDirectory, publishNew } from "../lib/fsx.ts";
import type { Position } from "../repo/where.ts";
import { appendEvent, ledgerOf } from "../ledger/store.ts";
import { LAYER_DIR, MANIFEST_FILE, loadLayer, type Manifest } from "../layer/manifest.ts";
import { guardLayer, guardLayerRoot } from "../layer/guard.ts";

const SKELETON = "share/skeleton/";
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

export type InitResult = {
  mode: "init" | "extend";
  root: string;
  created: string[];
  kept: string[];
  gitignore: "added" | "present";
};

function ignoreLine(manifest: Pick<Manifest, "local">): string {
  return `${LAYER_DIR}/${manifest.local.path}/`;
}

function ignoresLocal(text: string, line: string): boolean {
  const wanted = new Set([line, line.slice(0, -1), `/${line}`, `/${line.slice(0, -1)}`, `${line}*`, `/${line}*`]);
  return text.split(/\r?\n/).some((l) => wanted.has(l.trim()));
}

function ensureIgnored(root: string, manifest: Pick<Manifest, "local">): "added" | "present" {
  const path = join(root, ".gitignore");
  const line = ignoreLine(manifest);
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
  }
  if (ignoresLocal(text, line)) return "present";
  // Appended, never rewritten: the file is the person's.
  const lead = text === "" || text.endsWith("\n") ? "" : "\n";
  appendText(path, `${lead}# majordomus: the checkout-local half of the AI layer is never committed\n${line}\n`, 0o644);
  return "added";
}

function placeFor(rel: string, manifest: Pick<Manifest, "repo" | "local">): { rel: string; local: boolean } {
  if (rel.startsWith("repo/")) return { rel: `${manifest.repo.path}/${rel.slice(5)}`, local: false };
  if (rel.startsWith("local/")) return { rel: `${manifest.local.path}/${rel.slice(6)}`, local: true };
  return { rel, local: false };
}

function makeParents(target: string, layerDir: string, localRoot: string): void {
  const chain: string[] = [];
  for (let p = dirname(target); p.length > layerDir.length && !exists(p); p = dirname(p)) chain.unshift(p);
  for (const p of chain) ensureDir(p, p === localRoot || p.startsWith(localRoot + sep) ? PRIVATE_DIR_MODE : 0o755);
}

const DEFAULT_HALVES = { repo: { path: "repo" }, local: { path: "local", tracked: false as const } };

export async function initLayer(position: Position, options: { extend: boolean }): Promise<InitResult> {
  const root = position.worktree;
  const dir = join(root, LAYER_DIR);
  guardLayerRoot(root);
  const present = exists(dir);
  if (present && !isDirectory(dir)) {
    throw new Failure("refused", `${dir} exists and is not a folder`, "move it away, then run `majordomus init`");
  }
  if (present && !options.extend) {
    // A folder of that name another tool keeps is not a layer: said before --extend adds one beside it.
    const layer = exists(join(dir, MANIFEST_FILE));
    throw new Failure(
      "refused",
      layer
        ? `${dir} already exists`
        : `${dir} already exists and is not a majordomus layer (it holds no ${MANIFEST_FILE})`,
      layer
        ? "run `majordomus init --extend` to add only what is missing (nothing is overwritten)"
        : "run `majordomus init --extend` to add the layer's files beside what is there (nothing is " +
            "overwritten), or move the folder away",
    );
  }
  const existing = present && exists(join(dir, MANIFEST_FILE)) ? await loadLayer(root) : undefined;
  if (existing) guardLayer(existing);
  const halves = existing?.manifest ?? DEFAULT_HALVES;

  const created: string[] = [];
  const kept: string[] = [];
  ensureDir(dir);
  for (const asset of listAssets(SKELETON)) {
    const place = placeFor(asset.path.slice(SKELETON.length), halves);
    const target = join(dir, place.rel);
    makeParents(target, dir, join(dir, halves.local.path));
    const mode = place.local ? PRIVATE_FILE_MODE : asset.mode;
    const rel = relative(root, target);
    if (publishNew(target, asset.bytes, mode)) created.push(rel);
    else kept.push(rel);
  }

  const layer = await loadLayer(root);
  const gitignore = ensureIgnored(root, layer.manifest);
  const mode = present ? "extend" : "init";
  await appendEvent({ ledger: ledgerOf(layer), position }, "layer.initialized", { mode, created: created.length });
  return { mode, root, created, kept, gitignore };
}
