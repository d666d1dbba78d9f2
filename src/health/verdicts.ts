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
import { statSync } from "node:fs";
import { basename } from "node:path";
import { readPlain, writeFileAtomic } from "../lib/fsx.ts";
import { statKey } from "./tree.ts";

const HEADER = "majordomus doctor verdicts v3";

/** How many files doctor's reads check between two collections of their garbage (lib/runtime.ts pacedCollector). */
export const FILES_PER_COLLECTION = 256;

export class Verdicts {
  /** `<name>\t<key>` → the whole line remembered for it (with its id, when it carries one). */
  private readonly known = new Map<string, string>();
  /** The lines of the next cache; a file still good keeps the very line it was read from. */
  private readonly next = new Lines();

  /**
   * `file` undefined: nothing is remembered (a layer without a cache section). `seen`: the change
   * key of a file already looked at this run (a walk's), so it is not looked at twice.
   */
  private readonly header: string;
  /** Where the lines after the header start in `next`. */
  private readonly afterHeader: number;

  constructor(
    private readonly file: string | undefined,
    vocabulary: string,
    private readonly seen: (path: string) => string | undefined = () => undefined,
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

  /** Keys of files outside the walk, looked at once this run (a file is asked for before and after it is read). */
  private readonly looked = new Map<string, string | undefined>();

  private keyOf(path: string): string | undefined {
    const known = this.seen(path);
    if (known !== undefined) return known;
    if (this.looked.has(path)) return this.looked.get(path);
    const s = statSync(path, { throwIfNoEntry: false });
    const key = s ? statKey(s) : undefined;
    this.looked.set(path, key);
    return key;
  }

  private lineOf(path: string, key?: string): string | undefined {
    const k = key ?? this.keyOf(path);
    return k === undefined ? undefined : `${basename(path)}\t${k}`;
  }

  /** The remembered verdict for `path` if it still holds (then the file need not be read), with the id kept beside it. */
  good(path: string): { id?: string } | undefined {
    // Nothing remembered (a first run): no file need be looked at to know it.
    if (this.known.size === 0) return undefined;
    const line = this.lineOf(path);
    const whole = line === undefined ? undefined : this.known.get(line);
    if (whole === undefined) return undefined;
    this.next.add(whole);
    return whole.length === line!.length ? {} : { id: whole.slice(line!.length + 1) };
  }

  /** `path` was read and found good now; `key`: its change key as the read itself saw it (fstat of the file read). */
  mark(path: string, id?: string, key?: string): void {
    // An id that could break the line format is not remembered: that file is read again next time.
    if (id !== undefined && /[\t\n\r]/.test(id)) return;
    const line = this.lineOf(path, key);
    if (line === undefined) return;
    this.next.add(line);
    if (id !== undefined) this.next.extend(`\t${id}`);
  }

  /**
   * The lines kept so far, as bytes, and let go of here: what another thread's verdicts hand to
   * these (`adopt`). One buffer crosses between threads, not a string per file.
   */
  handOver(): Uint8Array {
    const lines = this.next.view(this.afterHeader);
    const out = lines.slice(lines[0] === 0x0a ? 1 : 0);
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

/**
 * Lines kept as bytes in one buffer that doubles as it fills, written to the cache as they are.
 * The 40,000 lines of doctor's first run kept as strings, joined into one text and that text into
 * bytes to be written, held 15 MiB of its peak; as bytes they hold the 3 MB they are.
 */
class Lines {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private length = 0;

  get size(): number {
    return this.length;
  }

  /** A new line. */
  add(line: string): void {
    if (this.length > 0) this.extend("\n");
    this.extend(line);
  }

  /** More of the last line. */
  extend(text: string): void {
    this.room(text.length * 3);
    this.length += this.bytes.write(text, this.length, "utf8");
  }

  /** New lines, as bytes another Lines gave (`view`). */
  addBytes(lines: Uint8Array): void {
    if (this.length > 0) this.extend("\n");
    this.room(lines.length);
    this.bytes.set(lines, this.length);
    this.length += lines.length;
  }

  /** The bytes from `from` on (a view, valid until the next change). */
  view(from = 0): Uint8Array {
    return this.bytes.subarray(from, this.length);
  }

  truncate(to: number): void {
    this.length = Math.min(this.length, to);
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
