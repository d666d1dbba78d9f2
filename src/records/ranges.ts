/**
 * A cited line range's text, fingerprinted when the record is written and looked for at the next
 * reading in the file as it is then: still there, there at other lines, or changed. Read from the
 * files themselves, so it holds for work git has not seen yet (an uncommitted file) and costs no
 * git process. The fingerprint is `<length of the first line>.<its hash>.<the range's hash>`:
 * nothing of the text can be read back from it.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { readLayerFile } from "../lib/safe-read.ts";
import { createHash } from "../lib/runtime.ts";
import { lineMap, type LineMaps } from "./lines.ts";

/** The largest cited file read (for a range's fingerprint, or a symbol). */
const CITED_FILE_BYTES = 4 * 1024 * 1024;

/**
 * A cited file's text in the checkout, never through a link (its own name, or a folder on the way
 * that leads out of the checkout) and never past CITED_FILE_BYTES; undefined when it cannot be read.
 */
export function citedText(root: string, path: string): string | undefined {
  try {
    const file = join(root, path);
    const inside = realpathSync(dirname(file));
    const under = (top: string) => inside === top || inside.startsWith(`${top}${sep}`);
    // A real path can start with `root` only where `root` is real itself (the checkout's root is): then no second look.
    if (!under(root) && !under(realpathSync(root))) return undefined;
    return readLayerFile(file, { maxBytes: CITED_FILE_BYTES });
  } catch {
    return undefined;
  }
}

const hash = (text: string, chars: number) => createHash("sha256", text).slice(0, chars);

/** Lines of a file's text, without their line ends. */
export const linesOf = (text: string): string[] => text.replace(/\r\n/g, "\n").split("\n");

/** The fingerprint of lines `from`–`to` (1-based) of `lines`; undefined when the file has no such lines. */
export function fingerprint(lines: readonly string[], [from, to]: readonly [number, number]): string | undefined {
  if (to > lines.length || from < 1) return undefined;
  const first = lines[from - 1]!;
  return `${first.length}.${hash(first, 8)}.${hash(lines.slice(from - 1, to).join("\n"), 12)}`;
}

export type Found = { at: "same" } | { at: "moved"; from: number; to: number } | { at: "gone" };

/** Where the range fingerprinted as `mark` is in `lines` now: where it was, at other lines (the nearest), or not there. */
export function findRange(lines: readonly string[], [from, to]: readonly [number, number], mark: string): Found {
  const [length, first, block] = mark.split(".");
  const size = to - from + 1;
  const matches = (start: number) =>
    start >= 1 &&
    start + size - 1 <= lines.length &&
    lines[start - 1]!.length === Number(length) &&
    hash(lines[start - 1]!, 8) === first &&
    hash(lines.slice(start - 1, start - 1 + size).join("\n"), 12) === block;
  if (matches(from)) return { at: "same" };
  let best: number | undefined;
  for (let start = 1; start + size - 1 <= lines.length; start++)
    if (matches(start) && (best === undefined || Math.abs(start - from) < Math.abs(best - from))) best = start;
  return best === undefined ? { at: "gone" } : { at: "moved", from: best, to: best + size - 1 };
}

/** A whole file's fingerprint: whether it changed since, without keeping anything of it. */
export const fileMark = (text: string): string => hash(text, 16);

/** What a cited file is now: its text, `absent`, or `unreadable` (a link, a folder, too large). */
export type Cited = { text: string } | "absent" | "unreadable";

export function citedFile(root: string, path: string): Cited {
  const text = citedText(root, path);
  if (text !== undefined) return { text };
  return lstatSync(join(root, path), { throwIfNoEntry: false }) ? "unreadable" : "absent";
}

/**
 * The path claims fingerprinted against the checkout as it is (each file read once): the whole
 * file (or `none` when it is not there), and a cited range's lines; and each cited file's line
 * map (records/lines.ts), for the local cache.
 */
export function marked<C extends { kind: string; path?: string; lines?: readonly [number, number] }>(
  claims: readonly C[],
  root: string,
): { claims: Array<C & { mark?: string; file?: string }>; lines: LineMaps } {
  const files = new Map<string, Cited>();
  const maps: LineMaps = {};
  const out = claims.map((c) => {
    if (c.kind !== "path" || c.path === undefined) return c;
    if (!files.has(c.path)) files.set(c.path, citedFile(root, c.path));
    const now = files.get(c.path)!;
    if (now === "unreadable") return c;
    if (now === "absent") return { ...c, file: "none" };
    const lines = linesOf(now.text);
    const map = lineMap(lines);
    if (map !== undefined) maps[c.path] = map;
    const mark = c.lines && fingerprint(lines, c.lines);
    return { ...c, file: fileMark(now.text), ...(mark ? { mark } : {}) };
  });
  return { claims: out, lines: maps };
}
