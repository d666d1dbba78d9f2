/**
 * The changed paths a record keeps. A working tree can hold tens of thousands of untracked files
 * (a `node_modules/` nobody ignored yet), and every checkpoint, handover and closed session record
 * listed each one: 20,000 files made each record 660 KB, and the closed records are committed.
 * Past RECORDED_PATHS_MAX, folders are written as `folder/` (a path ending in `/` stands for every
 * changed file under it, as `git status` writes an untracked folder), the most precise folders
 * first. The counts the records' texts give ("17 file(s) changed") stay the real ones.
 */
export const RECORDED_PATHS_MAX = 200;

/**
 * From the deepest folder level up: at one level, the folders holding the most entries are
 * written as `folder/` until the list fits; a level that cannot fit it even so gives way to the one
 * above. Root files are never dropped (they alone may exceed the bound).
 */
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
