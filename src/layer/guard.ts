/**
 * The layer is walked, never followed: a stranger's repository may track a link where a folder or file belongs
 * (`ledger.jsonl -> ~/.bashrc`). Every folder and appended file is lstat'ed before use; a link stops the command (a
 * hook says so once), as does a FIFO, socket or device where a file belongs (a FIFO at open-questions.md held a start
 * hook until the client killed it).
 */
import { lstatSync, type Stats } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { linkRefusal, oddRefusal } from "../lib/safe-read.ts";
import { LAYER_DIR, MANIFEST_FILE, SECTIONS, loadLayer, type Layer, type SectionName } from "./manifest.ts";

const STATE_FILES = ["ledger.jsonl", "current.yaml", "open-questions.md", "decisions.md"];

const refusal = (root: string, path: string) => linkRefusal(relative(root, path) || path);

function chain(root: string, path: string): string[] {
  const out: string[] = [];
  const top = join(root, LAYER_DIR);
  for (let p = path; p.startsWith(top) && p !== dirname(p); p = dirname(p)) {
    out.push(p);
    if (p === top) break;
  }
  return out;
}

function oddEntry(seen: Stats): string | undefined {
  if (seen.isFile() || seen.isDirectory() || seen.isSymbolicLink()) return undefined;
  return seen.isFIFO() ? "a FIFO" : seen.isSocket() ? "a socket" : "a device";
}

function check(root: string, path: string, file: boolean): void {
  const seen = lstatSync(path, { throwIfNoEntry: false });
  if (!seen) return;
  if (seen.isSymbolicLink()) throw refusal(root, path);
  const odd = file ? oddEntry(seen) : undefined;
  if (odd) throw oddRefusal(relative(root, path) || path, odd);
}

export function guardLayerRoot(root: string): void {
  check(root, join(root, LAYER_DIR), false);
  check(root, join(root, LAYER_DIR, MANIFEST_FILE), true);
}

export function guardLayer(layer: Layer): void {
  const root = layer.root;
  const paths = new Set<string>();
  const files = new Set<string>();
  for (const half of ["repo", "local"] as const)
    for (const p of chain(root, join(layer.dir, layer.manifest[half].path))) paths.add(p);
  for (const [name, rel] of Object.entries(layer.manifest.sections) as Array<[SectionName, string]>) {
    const path = join(layer.dir, rel);
    for (const p of chain(root, path)) paths.add(p);
    if (name === "state") for (const f of STATE_FILES) files.add(join(path, f));
    if (SECTIONS[name].kind === "file") files.add(path);
  }
  for (const f of files) paths.add(f);
  // Shallow first, so the message names the outermost link.
  for (const path of [...paths].sort((a, b) => a.split(sep).length - b.split(sep).length))
    check(root, path, files.has(path));
}

export async function loadGuardedLayer(root: string): Promise<Layer> {
  guardLayerRoot(root);
  const layer = await loadLayer(root);
  guardLayer(layer);
  return layer;
}
