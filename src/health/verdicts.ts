/**
 * What doctor found good last time, per file: a file whose name, size, change time and inode are unchanged is not
 * read again; a bad one is never remembered. The first line names the vocabulary (schemas and keys) the verdicts were
 * reached by, so another build's are not taken. One line per file, `<name>\t<key>[\t<id>]`, kept as lines rather than
 * objects.
 */
import { lstatSync } from "node:fs";
import { basename } from "node:path";
import { writeFileAtomic } from "../lib/fsx.ts";
import { readPlain } from "../lib/safe-read.ts";
import { statKey } from "./tree.ts";

const HEADER = "majordomus doctor verdicts v3";

export const FILES_PER_COLLECTION = 256;

export class Verdicts {
  private readonly known = new Map<string, string>();
  private readonly next = new Lines();

  private readonly header: string;
  private readonly afterHeader: number;

  constructor(
    private readonly file: string | undefined,
    vocabulary: string,
  ) {
    this.header = `${HEADER} ${vocabulary}`;
    this.next.add(this.header);
    this.afterHeader = this.next.size;
    const text = (file === undefined ? undefined : readPlain(file)) ?? "";
    const lines = text.split("\n");
    if (lines[0] !== this.header) return;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const tab = line.indexOf("\t", line.indexOf("\t") + 1);
      this.known.set(tab === -1 ? line : line.slice(0, tab), line);
    }
  }

  get remembering(): boolean {
    return this.known.size > 0;
  }

  /**
   * The remembered verdict for `path`, if it still holds, with its id. Without `key` the file is looked at (never
   * through a link).
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

  mark(path: string, key: string, id?: string): void {
    if (id !== undefined && /[\t\n\r]/.test(id)) return;
    const name = basename(path);
    this.next.add(id === undefined ? `${name}\t${key}` : `${name}\t${key}\t${id}`);
  }

  /** The lines kept so far as one buffer for another thread's `adopt`, not a string per file. */
  handOver(): Uint8Array {
    const lines = this.next.view(this.afterHeader);
    const out = new Uint8Array(lines.subarray(lines[0] === 0x0a ? 1 : 0));
    this.next.truncate(this.afterHeader);
    return out;
  }

  adopt(lines: Uint8Array): void {
    if (lines.length > 0) this.next.addBytes(lines);
  }

  save(): void {
    if (this.file === undefined) return;
    try {
      writeFileAtomic(this.file, this.next.view(), 0o600, { durable: false });
    } catch {}
  }
}

function keyOf(path: string): string | undefined {
  const s = lstatSync(path, { throwIfNoEntry: false });
  return s ? statKey(s) : undefined;
}

/**
 * Lines as bytes in one buffer: 40,000 lines as strings and joins held 15 MiB of doctor's peak, as bytes 3 MB. Flushed
 * 16 at a time: lines still waiting at a young collection move to the old heap (256 waiting grew the peak by 11 MiB).
 */
class Lines {
  /** Room for about 80,000 lines: doubling from 64 KB left 5 MiB of the peak in dead copies. */
  private bytes = Buffer.allocUnsafe(8 * 1024 * 1024);
  private length = 0;
  private pending: string[] = [];

  get size(): number {
    this.flush();
    return this.length;
  }

  add(line: string): void {
    this.pending.push(line);
    if (this.pending.length >= 16) this.flush();
  }

  addBytes(lines: Uint8Array): void {
    this.flush();
    if (this.length > 0) this.write("\n");
    this.room(lines.length);
    this.bytes.set(lines, this.length);
    this.length += lines.length;
  }

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

/** A string of its own: a slice keeps its source alive (10,000 ids of 2 KB records held 4.2 KB each, 1.2 KB copied). */
export function ownCopy(text: string): string {
  text.charCodeAt(0);
  return text;
}
