/**
 * Answers a one-shot command may reuse: a CLI run asks git the same question, or reads the same
 * policy, several times and nothing it writes in between changes the answer. Off by default, so a
 * long-lived caller (a test, a future server) never sees a stale one; the CLI turns it on.
 */
const answers = new Map<string, Promise<unknown>>();
let on = false;

export function remember(enabled: boolean): void {
  if (!enabled) answers.clear();
  on = enabled;
}

/** The answer kept under `key`, if one is (never computes it). */
export function peekMemo<T>(key: string): Promise<T> | undefined {
  return on ? (answers.get(key) as Promise<T> | undefined) : undefined;
}

export function memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
  if (!on) return compute();
  const known = answers.get(key) as Promise<T> | undefined;
  if (known) return known;
  const pending = compute();
  answers.set(key, pending);
  // A failure is not an answer worth keeping: the next caller asks again.
  pending.catch(() => answers.delete(key));
  return pending;
}
