/**
 * What a cited file's lines were when a record was written, kept as one 32-bit hash a line in the
 * local cache (`<cache>/claims/<record file>.json`; a cache: gone, git answers instead), so that
 * at the next reading the lines added and removed since it was written are counted from the file
 * itself, without a git process. Nothing of the text can be read back from a hash a line.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { layerDir, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { crc32 } from "../lib/runtime.ts";

/** v2: CRC-32 a line (v1's FNV-1a maps are not read: their hashes differ; git counts those records' lines). */
const SCHEMA = "claim-lines/v2";
/** Files longer than this keep no line map (git counts their lines). */
export const LINES_KEPT = 20_000;
/** The most edits counted (added + removed) before the count gives up and git is asked instead. */
const EDITS_COUNTED = 4_000;

export type LineMaps = Record<string, string>;

/** A line's hash: CRC-32 of its UTF-8 bytes (native in Bun). */
const lineHash = (line: string): number => crc32(line);

/** A file's lines as one string of hashes (8 hex digits a line); undefined past LINES_KEPT lines. */
export function lineMap(lines: readonly string[]): string | undefined {
  return lines.length > LINES_KEPT ? undefined : lines.map((l) => lineHash(l).toString(16).padStart(8, "0")).join("");
}

/** A line map read back as its hashes. */
function hashesOf(map: string): number[] {
  const out: number[] = new Array(map.length >> 3);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(map.slice(i * 8, i * 8 + 8), 16);
  return out;
}

/**
 * Lines added and removed from `before` (a line map) to `lines`, by the shortest edit script;
 * undefined when the search passes EDITS_COUNTED edits (then git counts them). Exact, and cheap
 * where it matters: the common head and tail are set aside, and so is every line only one side
 * has (no common subsequence can hold it, so the longest one is unchanged): a rewritten file costs
 * one pass, and the search (Myers) walks only the lines both sides share.
 */
export function linesChanged(before: string, lines: readonly string[]): { added: number; removed: number } | undefined {
  const a = hashesOf(before);
  const b = lines.map(lineHash);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const inA = new Set(midA);
  const inB = new Set(midB);
  const shared = editsBetween(
    midA.filter((h) => inB.has(h)),
    midB.filter((h) => inA.has(h)),
  );
  if (shared === undefined) return undefined;
  return { added: midB.length - shared.common, removed: midA.length - shared.common };
}

/** The length of the longest common subsequence of `a` and `b`, by Myers's search; undefined past EDITS_COUNTED edits. */
function editsBetween(a: readonly number[], b: readonly number[]): { common: number } | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, EDITS_COUNTED);
  const v = new Int32Array(2 * max + 3);
  const offset = max + 1;
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return { common: (n + m - d) / 2 };
    }
  }
  return undefined;
}

const mapsPath = (layer: Layer, recordFile: string) =>
  join(sectionPath(layer, "cache"), "claims", `${recordFile.replace(/[^A-Za-z0-9._-]/g, "-")}.json`);

/** The line maps kept: those of the newest records (their names sort by time); an older record's lines are counted by git. */
export const MAPS_KEPT = 64;

/** Keep the line maps of a record's cited files (best effort: a cache), and only the newest MAPS_KEPT records' maps. */
export function writeLineMaps(layer: Layer, recordFile: string, maps: LineMaps): void {
  if (Object.keys(maps).length === 0) return;
  try {
    const path = mapsPath(layer, recordFile);
    const dir = layerDir(dirname(path), 0o700);
    writeFileAtomic(path, JSON.stringify({ schema: SCHEMA, files: maps }), 0o600, { durable: false });
    const kept = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
    for (const old of kept.slice(0, Math.max(0, kept.length - MAPS_KEPT))) unlinkQuiet(join(dir, old));
  } catch {
    // a cache: without it git counts the lines
  }
}

/** A record's line maps, or none (never written, removed, or not ours). */
export function readLineMaps(layer: Layer, recordFile: string): LineMaps {
  try {
    const data = JSON.parse(readLayerFile(mapsPath(layer, recordFile), { maxBytes: 32 * 1024 * 1024 })) as {
      schema?: unknown;
      files?: unknown;
    };
    if (data.schema !== SCHEMA || !data.files || typeof data.files !== "object") return {};
    return Object.fromEntries(
      Object.entries(data.files as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === "string" && /^([0-9a-f]{8})*$/.test(e[1]),
      ),
    );
  } catch {
    return {};
  }
}
