/**
 * One walk of a folder for `doctor`: every folder and file under it, each looked at once (lstat,
 * never through a symbolic link), so the privacy, lock and record checks share one look per file
 * instead of each walking tens of thousands of files again. What the checks need is kept as the
 * walk goes (the folders and files that are not private, the links, the locks, each file's change
 * key), not the look itself: memory stays small on a layer of tens of thousands of files.
 */
import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";

export function statKey(s: { size: number; ctimeMs: number; ino: number }): string {
  return `${s.size}:${s.ctimeMs}:${s.ino}`;
}

export type Exposed = { path: string; mode: number };

const LOCK = /\.lock(\.break)?$/;

/**
 * The files of one folder as the walk saw them: their names (sorted, as the folder listing gave
 * them) and, at the same index, the three numbers of their change key. Numbers in typed arrays,
 * not a path and a key string per file: a string costs hundreds of bytes in the engine, and a
 * map of 30,000 joined paths and keys held about 20 MiB of doctor's peak.
 */
type Folder = { names: string[]; size: Float64Array; ctime: Float64Array; ino: Float64Array };

export class Tree {
  /** Folders whose mode lets others in (mode & 0o077), and files likewise (README.md files are public by design). */
  readonly openDirs: Exposed[] = [];
  readonly readableFiles: Exposed[] = [];
  readonly links: string[] = [];
  readonly locks: string[] = [];
  /** Per folder, its files' change keys (size, change time, inode): a file with the same key has not changed (see verdicts.ts). */
  private readonly folders = new Map<string, Folder>();

  constructor(readonly root: string) {
    const s = lstatSync(root, { throwIfNoEntry: false });
    if (s?.isDirectory()) this.visit(root, Number(s.mode) & 0o777);
    else if (s?.isSymbolicLink()) this.links.push(root);
  }

  private visit(path: string, mode: number): void {
    if ((mode & 0o077) !== 0) this.openDirs.push({ path, mode });
    let names: string[];
    try {
      names = readdirSync(path).sort();
    } catch {
      return;
    }
    const files: string[] = [];
    const size: number[] = [];
    const ctime: number[] = [];
    const ino: number[] = [];
    const folders: Array<[string, number]> = [];
    for (const name of names) {
      const child = join(path, name);
      const s = lstatSync(child, { throwIfNoEntry: false });
      if (!s) continue;
      const childMode = Number(s.mode) & 0o777;
      if (s.isSymbolicLink()) this.links.push(child);
      else if (s.isDirectory()) folders.push([child, childMode]);
      else {
        files.push(name);
        size.push(Number(s.size));
        ctime.push(Number(s.ctimeMs));
        ino.push(Number(s.ino));
        if ((childMode & 0o077) !== 0 && name !== "README.md")
          this.readableFiles.push({ path: child, mode: childMode });
        if (LOCK.test(name)) this.locks.push(child);
      }
    }
    if (files.length > 0)
      this.folders.set(path, {
        names: files,
        size: Float64Array.from(size),
        ctime: Float64Array.from(ctime),
        ino: Float64Array.from(ino),
      });
    // Folders after the files beside them, in name order: the same order of findings as one walk in name order.
    for (const [child, childMode] of folders) this.visit(child, childMode);
  }

  /** The files under `dir` (a folder inside this tree; one outside it gets a walk of its own). */
  files(dir: string): string[] {
    const inside = dir === this.root || dir.startsWith(this.root + sep);
    const tree = inside ? this : new Tree(dir);
    const prefix = dir + sep;
    const out: string[] = [];
    for (const [folder, f] of tree.folders)
      if (folder === dir || folder.startsWith(prefix)) for (const name of f.names) out.push(join(folder, name));
    return out.sort();
  }

  /** The change key of a file this walk saw, or undefined. */
  keyOf(path: string): string | undefined {
    const folder = this.folders.get(dirname(path));
    if (!folder) return undefined;
    const i = indexOf(folder.names, basename(path));
    return i < 0 ? undefined : statKey({ size: folder.size[i]!, ctimeMs: folder.ctime[i]!, ino: folder.ino[i]! });
  }
}

/** Where `name` is in the sorted `names`, or -1. */
function indexOf(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = names[mid]!;
    if (at === name) return mid;
    if (at < name) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
