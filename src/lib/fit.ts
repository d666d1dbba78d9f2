/**
 * Fitting a text to a channel: counted as the client counts it, cut between lines (a too-long line at a character,
 * never inside a surrogate pair), never inside an open code fence. Pure.
 */

export type Counts = "utf16" | "utf8";

export type Budget = { chars: number; counts: Counts; channel: string };

const encoder = new TextEncoder();

export function measure(text: string, counts: Counts): number {
  return counts === "utf16" ? text.length : encoder.encode(text).length;
}

export function sizeOf(lines: readonly string[], counts: Counts): number {
  if (lines.length === 0) return 0;
  let n = lines.length - 1;
  for (const l of lines) n += measure(l, counts);
  return n;
}

const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * The longest head of `lines` that fits `room` with `wrap` applied, ending before an open fence (or closing it when
 * nothing else is left); a first line too long is cut at a character. `kept`: source lines shown.
 */
export function headThatFits(
  lines: readonly string[],
  room: number,
  counts: Counts,
  wrap: (l: string) => string = (l) => l,
): { shown: string[]; kept: number; partial: boolean } {
  const shown: string[] = [];
  let used = 0;
  let fenceOpenedAt = -1;
  for (const line of lines) {
    const w = wrap(line);
    const cost = measure(w, counts) + (shown.length > 0 ? 1 : 0);
    if (used + cost > room) break;
    shown.push(w);
    used += cost;
    if (FENCE.test(line)) fenceOpenedAt = fenceOpenedAt === -1 ? shown.length - 1 : -1;
  }
  if (shown.length === 0) {
    const first = lines[0];
    if (first === undefined) return { shown, kept: 0, partial: false };
    const marker = "…";
    let lo = 0;
    let hi = first.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (measure(wrap(first.slice(0, mid) + marker), counts) <= room) lo = mid;
      else hi = mid - 1;
    }
    let cut = first.slice(0, lo);
    if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
    return cut.length > 0
      ? { shown: [wrap(cut + marker)], kept: 1, partial: true }
      : { shown: [], kept: 0, partial: false };
  }
  if (fenceOpenedAt !== -1 && shown.length < lines.length) {
    if (fenceOpenedAt > 0) return { shown: shown.slice(0, fenceOpenedAt), kept: fenceOpenedAt, partial: false };
    const close = wrap("```");
    while (shown.length > 1 && used + 1 + measure(close, counts) > room) used -= measure(shown.pop()!, counts) + 1;
    return { shown: [...shown, close], kept: shown.length, partial: false };
  }
  return { shown, kept: shown.length, partial: false };
}

export function outsideFence(lines: readonly string[], k: number): number {
  let openedAt = -1;
  for (let i = 0; i < k; i++) if (FENCE.test(lines[i]!)) openedAt = openedAt === -1 ? i : -1;
  return openedAt === -1 || k >= lines.length ? k : openedAt;
}

/** The largest n in [0, max] for which `fits` holds, by binary search (it holds for every smaller n). */
export function largest(max: number, fits: (n: number) => boolean): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
