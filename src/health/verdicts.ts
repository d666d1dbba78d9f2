/**
 * What `doctor` found good last time, per file, kept in the disposable cache: a file whose size,
 * change time and inode are what they were when it was last found good is not read again. A file
 * that changed in any way, or was never found good, is read and checked as always; a file found
 * bad is never remembered. This is what keeps `doctor` fast on a layer of tens of thousands of
 * records. The cache is written only where git ignores the local half.
 */
import { readFileSync, statSync } from "node:fs";
import { writeFileAtomic } from "../lib/fsx.ts";

type Entry = { k: string; id?: string };

const keyOf = (path: string): string | undefined => {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.size}:${s.ctimeMs}:${s.ino}` : undefined;
};

export class Verdicts {
  private readonly known: Map<string, Entry>;
  private readonly next = new Map<string, Entry>();

  constructor(private readonly file: string) {
    let data: Record<string, Entry> = {};
    try {
      data = JSON.parse(readFileSync(file, "utf8")) as Record<string, Entry>;
    } catch {
      // none yet, or unreadable: everything is read
    }
    this.known = new Map(Object.entries(data ?? {}));
  }

  /** The remembered verdict for `path` if it still holds (then the file need not be read). */
  good(path: string): Entry | undefined {
    const was = this.known.get(path);
    if (!was || was.k !== keyOf(path)) return undefined;
    this.next.set(path, was);
    return was;
  }

  /** `path` was read and found good now. */
  mark(path: string, id?: string): void {
    const k = keyOf(path);
    if (k) this.next.set(path, id === undefined ? { k } : { k, id });
  }

  save(): void {
    try {
      writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.next)), 0o600, { durable: false });
    } catch {
      // a cache that cannot be written only costs the next run its speed
    }
  }
}
