/**
 * What a command gives up on when a deadline passes: the programs it started and the waits it
 * began register here, and `cancelAll()` stops every one still running, so nothing keeps the
 * process (and the client waiting for it) alive past the deadline.
 */
const pending = new Set<() => void>();

/** What a cancelled program or wait answers with (its stderr), so a reader can say why it has no answer. */
export const GAVE_UP = "stopped at the deadline";

/** Register how to stop something; returns how to unregister it once it is done. */
export function onCancel(stop: () => void): () => void {
  pending.add(stop);
  return () => pending.delete(stop);
}

export function cancelAll(): void {
  for (const stop of [...pending]) {
    pending.delete(stop);
    try {
      stop();
    } catch {
      // already gone
    }
  }
}

/** `work`, or `fallback()` once `ms` have passed first (then everything pending is cancelled). */
export async function within<T>(work: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((wake) => (timer = setTimeout(() => wake("late"), ms)));
  try {
    const first = await Promise.race([work, late]);
    if (first !== "late") return first;
    cancelAll();
    work.catch(() => undefined);
    return fallback();
  } finally {
    clearTimeout(timer);
  }
}
