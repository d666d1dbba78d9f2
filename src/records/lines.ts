/**
 * A cited file's lines when a record was written, as one CRC-32 a line in the local cache, so the next reading counts
 * lines changed without git. Nothing of the text can be read back.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { layerDir, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { crc32 } from "../lib/runtime.ts";

// v1's FNV-1a maps are not read: git counts those records' lines.
const SCHEMA = "claim-lines/v2";
export const LINES_KEPT = 20_000;
const EDITS_COUNTED = 4_000;

export type LineMaps = Record<string, string>;

const lineHash = (line: string): number => crc32(line);

export function lineMap(lines: readonly string[]): string | undefined {
  return lines.length > LINES_KEPT ? undefined : lines.map((l) => lineHash(l).toString(16).padStart(8, "0")).join("");
}

function hashesOf(map: string): number[] {
  const out: number[] = new Array(map.length >> 3);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(map.slice(i * 8, i * 8 + 8), 16);
  return out;
}

/**
 * Lines added and removed since `before`, by Myers's shortest edit script over the lines both sides share (common
 * head, tail and one-sided lines set aside first); undefined past EDITS_COUNTED.
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

export const MAPS_KEPT = 64;

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
  } catch {}
}

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
