/**
 * What `doctor` found good last time, per file, kept in the disposable cache: a file whose name,
 * size, change time and inode are what they were when it was last found good is not read again.
 * A file that changed in any way, or was never found good, is read and checked as always; a file
 * found bad is never remembered. This is what keeps `doctor` fast on a layer of tens of thousands
 * of records. The cache is written only where git ignores the local half.
 *
 * Its first line names the vocabulary the verdicts were reached by (the record schemas and keys of
 * the build that wrote it): another build's verdicts are not taken, so a record a newer build found
 * good, with a key an older one does not know, is read again by the older one, and the other way.
 *
 * The file is one line per good file, `<name>\t<key>[\t<id>]` (the inode in the key tells two
 * folders' files of one name apart), read into a map of lines: tens of thousands of records cost
 * a few megabytes, not a map of objects, and a file still good is written back with the very line
 * it was read from.
 */
import { lstatSync } from "node:fs";
import { basename } from "node:path";
import { writeFileAtomic } from "../lib/fsx.ts";
import { readPlain } from "../lib/safe-read.ts";
import { statKey } from "./tree.ts";

const HEADER = "majordomus doctor verdicts v3";

/** How many files doctor's reads check between two collections of their garbage (lib/runtime.ts pacedCollector). */
export const FILES_PER_COLLECTION = 256;

export class Verdicts {
  /** `<name>\t<key>` → the whole line remembered for it (with its id, when it carries one). */
  private readonly known = new Map<string, string>();
  /** The lines of the next cache; a file still good keeps the very line it was read from. */
  private readonly next = new Lines();

  private readonly header: string;
  /** Where the lines after the header start in `next`. */
  private readonly afterHeader: number;

  /** `file` undefined: nothing is remembered (a layer without a cache section). */
  constructor(
    private readonly file: string | undefined,
    vocabulary: string,
  ) {
    this.header = `${HEADER} ${vocabulary}`;
    // The cache as it will be written: its header line, then a line per file found good.
    this.next.add(this.header);
    this.afterHeader = this.next.size;
    // None yet, unreadable, or not a file of ours (a link is never read through): everything is read.
    const text = (file === undefined ? undefined : readPlain(file)) ?? "";
    const lines = text.split("\n");
    // Any other first line (another build's cache, a damaged one) is no cache at all.
    if (lines[0] !== this.header) return;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const tab = line.indexOf("\t", line.indexOf("\t") + 1);
      this.known.set(tab === -1 ? line : line.slice(0, tab), line);
    }
  }

  /** Whether an earlier run's verdicts are kept (then most files are known good without a read). */
  get remembering(): boolean {
    return this.known.size > 0;
  }

  /**
   * The remembered verdict for `path` if it still holds (then the file need not be read), with the
   * id kept beside it. `key`: its change key as a walk knows it; without one, it is looked at here
   * (never through a link). A caller with a key to work out asks only while `remembering`.
   */
  good(path: string, key?: string): { id?: string } | undefined {
    if (this.known.size === 0) return undefined;
    const k = key ?? keyOf(path);
    if (k === undefined) return undefined;
    const line = `${basename(path)}\t${k}`;
    const whole = this.known.get(line);
    if (whole === undefined) return undefined;
    this.next.add(whole);
    return whole.length === line.length ? {} : { id: whole.slice(line.length + 1) };
  }

  /** `path` was read and found good now; `key`: its change key as the read itself saw it (fstat of the file read). */
  mark(path: string, key: string, id?: string): void {
    // An id that could break the line format is not remembered: that file is read again next time.
    if (id !== undefined && /[\t\n\r]/.test(id)) return;
    const name = basename(path);
    this.next.add(id === undefined ? `${name}\t${key}` : `${name}\t${key}\t${id}`);
  }

  /**
   * The lines kept so far, as bytes, and let go of here: what another thread's verdicts hand to
   * these (`adopt`). One buffer crosses between threads, not a string per file.
   */
  handOver(): Uint8Array {
    const lines = this.next.view(this.afterHeader);
    // A copy (a Buffer's slice is a view of it, which the next lines would write over).
    const out = new Uint8Array(lines.subarray(lines[0] === 0x0a ? 1 : 0));
    this.next.truncate(this.afterHeader);
    return out;
  }

  /** Keep the lines another thread's verdicts over the same cache kept (their `handOver`). */
  adopt(lines: Uint8Array): void {
    if (lines.length > 0) this.next.addBytes(lines);
  }

  save(): void {
    if (this.file === undefined) return;
    try {
      writeFileAtomic(this.file, this.next.view(), 0o600, { durable: false });
    } catch {
      // a cache that cannot be written only costs the next run its speed
    }
  }
}

/** The change key of the file at `path` by one look, never through a link; undefined when it is gone. */
function keyOf(path: string): string | undefined {
  const s = lstatSync(path, { throwIfNoEntry: false });
  return s ? statKey(s) : undefined;
}

/**
 * Lines kept as bytes in one buffer that doubles as it fills, written to the cache as they are.
 * The 40,000 lines of doctor's first run kept as strings, joined into one text and that text into
 * bytes to be written, held 15 MiB of its peak; as bytes they hold the 3 MB they are. They are
 * written a few at a time (a later run goes without the JIT, where a call per line costs), never
 * many: a line still waiting when the engine collects young garbage is moved to the old, which
 * only a full collection empties (with 256 waiting, the peak grew by 11 MiB).
 */
class Lines {
  /**
   * Room for about 80,000 lines before it grows: a page of it costs memory only once written, and
   * growing copies (doubling from 64 KB to the 4 MB of doctor's first run over 40,000 files left
   * 5 MiB of its peak in copies no longer used).
   */
  private bytes = Buffer.allocUnsafe(8 * 1024 * 1024);
  private length = 0;
  private pending: string[] = [];

  get size(): number {
    this.flush();
    return this.length;
  }

  /** A new line. */
  add(line: string): void {
    this.pending.push(line);
    if (this.pending.length >= 16) this.flush();
  }

  /** New lines, as bytes another Lines gave (`view`). */
  addBytes(lines: Uint8Array): void {
    this.flush();
    if (this.length > 0) this.write("\n");
    this.room(lines.length);
    this.bytes.set(lines, this.length);
    this.length += lines.length;
  }

  /** The bytes from `from` on (a view, valid until the next change). */
  view(from = 0): Uint8Array {
    this.flush();
    return this.bytes.subarray(from, this.length);
  }

  truncate(to: number): void {
    this.flush();
    this.length = Math.min(this.length, to);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join("\n");
    this.pending = [];
    this.write(this.length > 0 ? `\n${text}` : text);
  }

  private write(text: string): void {
    this.room(text.length * 3);
    this.length += this.bytes.write(text, this.length, "utf8");
  }

  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}

/**
 * `text` as a string of its own. A value read from a record's text is cut from it, and the engine
 * keeps the whole text alive for as long as the cut is kept: 10,000 ids of 2 KB records held 4.2 KB
 * each, and 1.2 KB once copied.
 */
export function ownCopy(text: string): string {
  text.charCodeAt(0);
  return text;
}
