/**
 * One walk of a folder for `doctor`: every folder and file under it, listed once with the type
 * the folder listing gives (never through a symbolic link), so the privacy, lock, temp-file and
 * record checks share one listing instead of each walking tens of thousands of files again.
 *
 * A file is not looked at by the walk: what doctor needs of it (its mode, its change key) comes
 * from the fstat of the read that checks it (`sawAt`), or, for a file nobody reads this run, from
 * one lstat when it is asked for (`keyAt`, `exposure`). A first run reads every record anyway, so
 * an lstat per file beside that read was a second look at each of tens of thousands of files.
 * What the checks need is kept in typed arrays per folder, not an object per file: memory stays
 * small on a layer of tens of thousands of files.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join, sep } from "node:path";
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

/** A file of a walk, as `entries` lists it: its folder and name, and where the walk keeps what it knows of it. */
export type Entry = { readonly dir: string; readonly name: string; readonly folder: Folder; readonly i: number };

/** The path of a file `entries` gave (made when asked: a list of 20,000 paths held while they are read costs MiB). */
export const pathOf = (entry: Entry): string => join(entry.dir, entry.name);

export class Tree {
  private readonly openDirs: Exposed[] = [];
  private readonly links: string[] = [];
  private readonly locks: string[] = [];
  private readonly temps: string[] = [];
  private readonly folders = new Map<string, Folder>();

  /**
   * `except`: folders under `root` this walk leaves to a walk of their own (doctor's prompts,
   * walked on the second thread). `eager`: each file is looked at as the walk lists it, for a run
   * that will ask every file's key and read few of them (doctor's later runs, which go without the
   * JIT: there a look in the walk's own loop costs less than one asked for later).
   */
  constructor(
    readonly root: string,
    private readonly except: readonly string[] = [],
    private readonly eager = false,
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
      const folder = {
        names: files,
        mode: new Int32Array(n).fill(UNKNOWN),
        size: new Float64Array(n),
        ctime: new Float64Array(n),
        ino: new Float64Array(n),
      };
      this.folders.set(path, folder);
      if (this.eager) for (let i = 0; i < n; i++) this.known(folder, i, join(path, files[i]!));
    }
    // Folders after the files beside them, in name order: the same order of findings as one walk in name order.
    for (const child of folders) {
      const s = lstatSync(child, { throwIfNoEntry: false });
      if (s?.isDirectory()) this.visit(child, Number(s.mode) & 0o777);
    }
  }

  /**
   * The files under `dir` in path order (only those directly in it with `deep` false), each with
   * where the walk keeps what it knows of it: `keyAt` and `sawAt` reach that without looking the
   * path up again. A folder outside this tree gets a walk of its own.
   */
  entries(dir: string, deep = true): Entry[] {
    const tree = this.holds(dir) ? this : new Tree(dir, [], this.eager);
    const prefix = dir + sep;
    const out: Entry[] = [];
    let folders = 0;
    for (const [folder, f] of tree.folders) {
      if (folder !== dir && !(deep && folder.startsWith(prefix))) continue;
      folders++;
      for (let i = 0; i < f.names.length; i++) out.push({ dir: folder, name: f.names[i]!, folder: f, i });
    }
    if (folders < 2) return out;
    const paths = new Map(out.map((e) => [e, pathOf(e)]));
    return out.sort((a, b) => (paths.get(a)! < paths.get(b)! ? -1 : paths.get(a)! > paths.get(b)! ? 1 : 0));
  }

  /** The change key of a file `entries` gave (looked at now if nobody read it yet), or undefined when it is gone. */
  keyAt(entry: Entry): string | undefined {
    const { folder, i } = entry;
    if (!this.known(folder, i, pathOf(entry))) return undefined;
    return statKey({ size: folder.size[i]!, ctimeMs: folder.ctime[i]!, ino: folder.ino[i]! });
  }

  /** What the read of a file `entries` gave saw of it (its fstat). */
  sawAt(entry: Entry, stats: Look): void {
    fill(entry.folder, entry.i, stats);
  }

  private holds(dir: string): boolean {
    return (
      (dir === this.root || dir.startsWith(this.root + sep)) &&
      !this.except.some((e) => dir === e || dir.startsWith(e + sep))
    );
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
        if (folder.mode[i] === UNKNOWN && !this.known(folder, i, join(dir, name))) continue;
        const mode = folder.mode[i]!;
        if ((mode & 0o077) !== 0 && name !== "README.md") readableFiles.push({ path: join(dir, name), mode });
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
