/**
 * The changed paths a record keeps: 20,000 untracked files had made each record 660 KB (and closed records are
 * committed). Past RECORDED_PATHS_MAX, folders are written as `folder/` (as git status writes an untracked folder),
 * the most precise first; the counts stay the real ones.
 */
export const RECORDED_PATHS_MAX = 200;

/** From the deepest level up, the fullest folders folded first; root files are never dropped. */
export function recordedPaths(paths: readonly string[], max = RECORDED_PATHS_MAX): string[] {
  const unique = [...new Set(paths)].sort();
  if (unique.length <= max) return unique;
  const deepest = Math.max(...unique.map((p) => p.split("/").length - 1));
  let chosen = new Set<string>();
  let level = deepest;
  for (; level >= 1; level--) {
    const groups = new Map<string, number>();
    for (const p of unique) {
      const parts = p.split("/");
      if (parts.length > level) {
        const folder = `${parts.slice(0, level).join("/")}/`;
        groups.set(folder, (groups.get(folder) ?? 0) + 1);
      }
    }
    const bySize = [...groups].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    let count = unique.length;
    chosen = new Set();
    for (const [folder, n] of bySize) {
      if (count <= max) break;
      chosen.add(folder);
      count -= n - 1;
    }
    if (count <= max || level === 1) break;
  }
  if (chosen.size === 0) return unique;
  const kept = new Set<string>();
  for (const p of unique) {
    const parts = p.split("/");
    const folder = parts.length > level ? `${parts.slice(0, level).join("/")}/` : undefined;
    kept.add(folder !== undefined && chosen.has(folder) ? folder : p);
  }
  return [...kept].sort();
}
