/**
 * A cited range fingerprinted when written and looked for at the next reading: there, moved, or changed. Read from
 * the files, so it holds for uncommitted work and costs no git. `<first line's length>.<its hash>.<range hash>`:
 * nothing of the text can be read back.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { readLayerFile } from "../lib/safe-read.ts";
import { createHash } from "../lib/runtime.ts";
import { lineMap, type LineMaps } from "./lines.ts";

const CITED_FILE_BYTES = 4 * 1024 * 1024;

/** A cited file's text, never through a link or out of the checkout, at most CITED_FILE_BYTES. */
export function citedText(root: string, path: string): string | undefined {
  try {
    const file = join(root, path);
    const inside = realpathSync(dirname(file));
    const under = (top: string) => inside === top || inside.startsWith(`${top}${sep}`);
    if (!under(root) && !under(realpathSync(root))) return undefined;
    return readLayerFile(file, { maxBytes: CITED_FILE_BYTES });
  } catch {
    return undefined;
  }
}

const hash = (text: string, chars: number) => createHash("sha256", text).slice(0, chars);

export const linesOf = (text: string): string[] => text.replace(/\r\n/g, "\n").split("\n");

export function fingerprint(lines: readonly string[], [from, to]: readonly [number, number]): string | undefined {
  if (to > lines.length || from < 1) return undefined;
  const first = lines[from - 1]!;
  return `${first.length}.${hash(first, 8)}.${hash(lines.slice(from - 1, to).join("\n"), 12)}`;
}

export type Found = { at: "same" } | { at: "moved"; from: number; to: number } | { at: "gone" };

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

export const fileMark = (text: string): string => hash(text, 16);

export type Cited = { text: string } | "absent" | "unreadable";

export function citedFile(root: string, path: string): Cited {
  const text = citedText(root, path);
  if (text !== undefined) return { text };
  return lstatSync(join(root, path), { throwIfNoEntry: false }) ? "unreadable" : "absent";
}

/** Path claims fingerprinted against the checkout (each file read once), with each file's line map for the cache. */
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
