/**
 * One walk of a folder for doctor, shared by its checks. A file's mode and change key come from the fstat of the read
 * that checks it (`sawAt`), else from one lstat when asked: an lstat beside every read of a first run was a second
 * look at tens of thousands of files. Kept in typed arrays per folder, not an object per file.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join, sep } from "node:path";
import { TEMP_NAME } from "../lib/fsx.ts";

export function statKey(s: { size: number; ctimeMs: number; ino: number }): string {
  return `${s.size}:${s.ctimeMs}:${s.ino}`;
}

type Look = { size: number | bigint; ctimeMs: number; ino: number | bigint; mode: number | bigint };

export type Exposed = { path: string; mode: number };
export type Exposure = {
  openDirs: Exposed[];
  readableFiles: Exposed[];
  links: string[];
  locks: string[];
  temps: string[];
};

const LOCK = /\.lock(\.break)?$/;
const UNKNOWN = -1;

type Folder = { names: string[]; mode: Int32Array; size: Float64Array; ctime: Float64Array; ino: Float64Array };

export type Entry = { readonly dir: string; readonly name: string; readonly folder: Folder; readonly i: number };

/** Made when asked: 20,000 paths held while read cost MiB. */
export const pathOf = (entry: Entry): string => join(entry.dir, entry.name);

export class Tree {
  private readonly openDirs: Exposed[] = [];
  private readonly links: string[] = [];
  private readonly locks: string[] = [];
  private readonly temps: string[] = [];
  private readonly folders = new Map<string, Folder>();

  /**
   * `except`: folders walked on their own. `eager`: each file looked at as listed, for a later run that asks every
   * key and reads few (without the JIT a look in the walk's loop is cheaper).
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
    for (const child of folders) {
      const s = lstatSync(child, { throwIfNoEntry: false });
      if (s?.isDirectory()) this.visit(child, Number(s.mode) & 0o777);
    }
  }

  /** The files under `dir` in path order (directly in it with `deep` false). */
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

  keyAt(entry: Entry): string | undefined {
    const { folder, i } = entry;
    if (!this.known(folder, i, pathOf(entry))) return undefined;
    return statKey({ size: folder.size[i]!, ctimeMs: folder.ctime[i]!, ino: folder.ino[i]! });
  }

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
   * Folders and files open to others (README.md files are public by design), links, locks and temp files; a file
   * nobody read is looked at once here.
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
