/**
 * One walk of a folder for `doctor`: every folder and file under it, listed once with the type
 * the folder listing gives (never through a symbolic link), so the privacy, lock, temp-file and
 * record checks share one listing instead of each walking tens of thousands of files again.
 *
 * A file is not looked at by the walk: what doctor needs of it (its mode, its change key) comes
 * from the fstat of the read that checks it (`saw`), or, for a file nobody reads this run, from
 * one lstat when it is asked for (`keyOf`, `exposure`). A first run reads every record anyway, so
 * an lstat per file beside that read was a second look at each of tens of thousands of files.
 * What the checks need is kept in typed arrays per folder, not an object per file: memory stays
 * small on a layer of tens of thousands of files.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { TEMP_NAME } from "../lib/fsx.ts";

export function statKey(s: { size: number; ctimeMs: number; ino: number }): string {
  return `${s.size}:${s.ctimeMs}:${s.ino}`;
}

type Look = { size: number | bigint; ctimeMs: number; ino: number | bigint; mode: number | bigint };

export type Exposed = { path: string; mode: number };
/** What the privacy, lock and temp-file checks find in a walk: plain data, so a walk on another thread can hand it over. */
export type Exposure = {
  openDirs: Exposed[];
  readableFiles: Exposed[];
  links: string[];
  locks: string[];
  temps: string[];
};

const LOCK = /\.lock(\.break)?$/;
/** A mode not yet known (the file was neither read nor looked at). */
const UNKNOWN = -1;

/**
 * The files of one folder: their names (sorted) and, at the same index, their mode and the three
 * numbers of their change key, once known. Numbers in typed arrays, not a path and a key string
 * per file: a string costs hundreds of bytes in the engine.
 */
type Folder = { names: string[]; mode: Int32Array; size: Float64Array; ctime: Float64Array; ino: Float64Array };

export class Tree {
  private readonly openDirs: Exposed[] = [];
  private readonly links: string[] = [];
  private readonly locks: string[] = [];
  private readonly temps: string[] = [];
  private readonly folders = new Map<string, Folder>();

  /** `except`: folders under `root` this walk leaves to a walk of their own (doctor's prompts, walked on the second thread). */
  constructor(
    readonly root: string,
    private readonly except: readonly string[] = [],
  ) {
    const s = lstatSync(root, { throwIfNoEntry: false });
    if (s?.isDirectory()) this.visit(root, Number(s.mode) & 0o777);
    else if (s?.isSymbolicLink()) this.links.push(root);
  }

  private visit(path: string, mode: number): void {
    if ((mode & 0o077) !== 0) this.openDirs.push({ path, mode });
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files: string[] = [];
    const folders: string[] = [];
    for (const entry of entries) {
      const name = entry.name;
      // A listing that cannot say the type (some file systems) is asked once more, with an lstat.
      const kind = entry.isFile()
        ? "file"
        : entry.isSymbolicLink()
          ? "link"
          : entry.isDirectory()
            ? "folder"
            : kindOf(lstatSync(join(path, name), { throwIfNoEntry: false }));
      if (kind === "file") {
        files.push(name);
        if (LOCK.test(name)) this.locks.push(join(path, name));
        if (TEMP_NAME.test(name)) this.temps.push(join(path, name));
      } else if (kind === "link") this.links.push(join(path, name));
      else if (kind === "folder" && !this.except.includes(join(path, name))) folders.push(join(path, name));
    }
    if (files.length > 0) {
      const n = files.length;
      this.folders.set(path, {
        names: files,
        mode: new Int32Array(n).fill(UNKNOWN),
        size: new Float64Array(n),
        ctime: new Float64Array(n),
        ino: new Float64Array(n),
      });
    }
    // Folders after the files beside them, in name order: the same order of findings as one walk in name order.
    for (const child of folders) {
      const s = lstatSync(child, { throwIfNoEntry: false });
      if (s?.isDirectory()) this.visit(child, Number(s.mode) & 0o777);
    }
  }

  /** The files under `dir` (a folder inside this tree; one outside it gets a walk of its own). */
  files(dir: string): string[] {
    const tree = this.holds(dir) ? this : new Tree(dir);
    const prefix = dir + sep;
    const out: string[] = [];
    for (const [folder, f] of tree.folders)
      if (folder === dir || folder.startsWith(prefix)) for (const name of f.names) out.push(join(folder, name));
    return out.sort();
  }

  /** The names of the files directly in `dir`, sorted (a folder outside this tree gets a walk of its own). */
  names(dir: string): readonly string[] {
    const tree = this.holds(dir) ? this : new Tree(dir);
    return tree.folders.get(dir)?.names ?? [];
  }

  private holds(dir: string): boolean {
    return (
      (dir === this.root || dir.startsWith(this.root + sep)) &&
      !this.except.some((e) => dir === e || dir.startsWith(e + sep))
    );
  }

  /** What the read of `path` saw of it (its fstat): its mode and change key, so the walk need not look again. */
  saw(path: string, stats: Look): void {
    const at = this.at(path);
    if (at) fill(at.folder, at.i, stats);
  }

  /** The change key of a file this walk listed (looked at now if nobody read it yet), or undefined. */
  keyOf(path: string): string | undefined {
    const at = this.at(path);
    if (!at || !this.known(at.folder, at.i, path)) return undefined;
    const { folder, i } = at;
    return statKey({ size: folder.size[i]!, ctimeMs: folder.ctime[i]!, ino: folder.ino[i]! });
  }

  /**
   * What the privacy, lock and temp-file checks report: folders and files whose mode lets others
   * in (README.md files are public by design), the links, the locks and the temp files. A file
   * nobody read is looked at here, once; one gone since the listing is not reported.
   */
  exposure(): Exposure {
    const readableFiles: Exposed[] = [];
    for (const [dir, folder] of this.folders)
      for (let i = 0; i < folder.names.length; i++) {
        const name = folder.names[i]!;
        const path = join(dir, name);
        if (!this.known(folder, i, path)) continue;
        const mode = folder.mode[i]!;
        if ((mode & 0o077) !== 0 && name !== "README.md") readableFiles.push({ path, mode });
      }
    return { openDirs: this.openDirs, readableFiles, links: this.links, locks: this.locks, temps: this.temps };
  }

  /** Whether the file at `folder`/`i` has been seen (read or looked at), looking at it now if not; false if it is gone. */
  private known(folder: Folder, i: number, path: string): boolean {
    if (folder.mode[i] !== UNKNOWN) return true;
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (!s) return false;
    fill(folder, i, s);
    return true;
  }

  private at(path: string): { folder: Folder; i: number } | undefined {
    const folder = this.folders.get(dirname(path));
    if (!folder) return undefined;
    const i = indexOf(folder.names, basename(path));
    return i < 0 ? undefined : { folder, i };
  }
}

function kindOf(
  s: { isSymbolicLink(): boolean; isDirectory(): boolean } | undefined,
): "link" | "folder" | "file" | "gone" {
  return !s ? "gone" : s.isSymbolicLink() ? "link" : s.isDirectory() ? "folder" : "file";
}

function fill(folder: Folder, i: number, s: Look): void {
  folder.mode[i] = Number(s.mode) & 0o777;
  folder.size[i] = Number(s.size);
  folder.ctime[i] = Number(s.ctimeMs);
  folder.ino[i] = Number(s.ino);
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
