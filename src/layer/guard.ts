/**
 * The layer is walked, never followed: a repository from a stranger may track a symbolic link
 * where a folder or file of the layer belongs (`.ai/repo/sessions -> ~`, `ledger.jsonl ->
 * ~/.bashrc`), and following it would make a hook write outside the repository. Every folder of
 * the layer and the files majordomus appends to are checked with lstat before a command uses the
 * layer; one that is a link stops the command (a hook says so once and records nothing). So does
 * a FIFO, a socket or a device where the layer keeps a file: reading one would wait for a writer
 * that never comes (a FIFO at open-questions.md held a start hook until the client killed it).
 */
import { lstatSync, type Stats } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { linkRefusal, oddRefusal } from "../lib/safe-read.ts";
import { LAYER_DIR, MANIFEST_FILE, SECTIONS, loadLayer, type Layer, type SectionName } from "./manifest.ts";

/** Files inside the state section that are appended to or rewritten in place. */
const STATE_FILES = ["ledger.jsonl", "current.yaml", "open-questions.md", "decisions.md"];

const refusal = (root: string, path: string) => linkRefusal(relative(root, path) || path);

/** Every path from `.ai/` down to `path` (inclusive). */
function chain(root: string, path: string): string[] {
  const out: string[] = [];
  const top = join(root, LAYER_DIR);
  for (let p = path; p.startsWith(top) && p !== dirname(p); p = dirname(p)) {
    out.push(p);
    if (p === top) break;
  }
  return out;
}

/** What stands at `path` where a file belongs, when it is neither a file nor a folder (a folder is said where it is read). */
function oddEntry(seen: Stats): string | undefined {
  if (seen.isFile() || seen.isDirectory() || seen.isSymbolicLink()) return undefined;
  return seen.isFIFO() ? "a FIFO" : seen.isSocket() ? "a socket" : "a device";
}

/** Refuse a link at `path`, and, where the layer keeps a file (`file`), anything that is not one. */
function check(root: string, path: string, file: boolean): void {
  const seen = lstatSync(path, { throwIfNoEntry: false });
  if (!seen) return;
  if (seen.isSymbolicLink()) throw refusal(root, path);
  const odd = file ? oddEntry(seen) : undefined;
  if (odd) throw oddRefusal(relative(root, path) || path, odd);
}

/** Before the manifest is read: `.ai/` and the manifest themselves. */
export function guardLayerRoot(root: string): void {
  check(root, join(root, LAYER_DIR), false);
  check(root, join(root, LAYER_DIR, MANIFEST_FILE), true);
}

/** Once the manifest is read: every declared section, every folder on the way to it, and the state files. */
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

/** The layer of the worktree at `root`, loaded between the two checks above, as every command loads its own. */
export async function loadGuardedLayer(root: string): Promise<Layer> {
  guardLayerRoot(root);
  const layer = await loadLayer(root);
  guardLayer(layer);
  return layer;
}
