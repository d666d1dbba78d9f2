/**
 * "Did you mean": the candidate closest to a mistyped word, by edit distance with adjacent transpositions counted as
 * one edit (`inti` → `init`, `histroy` → `history`), when it is close enough to be a typo rather than another word.
 */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate within a typo's reach (a third of the word's length, at least one edit), or undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const reach = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (d <= reach && (best === undefined || d < best.d)) best = { name, d };
  }
  return best?.name;
}
