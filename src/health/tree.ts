/**
 * One walk of a folder for `doctor`: every folder and file under it, each looked at once (lstat,
 * never through a symbolic link), so the privacy, lock and record checks share one look per file
 * instead of each walking tens of thousands of files again. What the checks need is kept as the
 * walk goes (the folders and files that are not private, the links, the locks, each file's change
 * key), not the look itself: memory stays small on a layer of tens of thousands of files.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";

export function statKey(s: { size: number; ctimeMs: number; ino: number }): string {
  return `${s.size}:${s.ctimeMs}:${s.ino}`;
}

export type Exposed = { path: string; mode: number };

const LOCK = /\.lock(\.break)?$/;

export class Tree {
  /** Folders whose mode lets others in (mode & 0o077), and files likewise (README.md files are public by design). */
  readonly openDirs: Exposed[] = [];
  readonly readableFiles: Exposed[] = [];
  readonly links: string[] = [];
  readonly locks: string[] = [];
  /** Every file's change key (size, change time, inode): a file with the same key has not changed (see verdicts.ts). */
  private readonly keys = new Map<string, string>();

  constructor(readonly root: string) {
    this.visit(root, lstatSync(root, { throwIfNoEntry: false }));
  }

  private visit(path: string, s: ReturnType<typeof lstatSync>): void {
    if (!s) return;
    const mode = Number(s.mode) & 0o777;
    if (s.isSymbolicLink()) {
      this.links.push(path);
      return;
    }
    if (!s.isDirectory()) {
      this.keys.set(path, statKey({ size: Number(s.size), ctimeMs: Number(s.ctimeMs), ino: Number(s.ino) }));
      if ((mode & 0o077) !== 0 && !path.endsWith("README.md")) this.readableFiles.push({ path, mode });
      if (LOCK.test(path)) this.locks.push(path);
      return;
    }
    if ((mode & 0o077) !== 0) this.openDirs.push({ path, mode });
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const child = join(path, name);
      this.visit(child, lstatSync(child, { throwIfNoEntry: false }));
    }
  }

  /** The files under `dir` (a folder inside this tree; one outside it gets a walk of its own). */
  files(dir: string): string[] {
    const inside = dir === this.root || dir.startsWith(this.root + sep);
    const tree = inside ? this : new Tree(dir);
    const prefix = dir + sep;
    return [...tree.keys.keys()].filter((p) => p.startsWith(prefix));
  }

  /** The change key of a file this walk saw, or undefined. */
  keyOf(path: string): string | undefined {
    return this.keys.get(path);
  }
}
