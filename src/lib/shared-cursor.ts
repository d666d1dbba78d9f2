/**
 * One list worked through by two threads together, each item by exactly one of them: each thread
 * lists the items itself (no list crosses between threads), and they share only a cursor in a
 * SharedArrayBuffer. The first to arrive says how long its list is and a digest of it; the other
 * takes part only if its own list is the same, and otherwise leaves the whole list to the first.
 * A thread alone (no buffer) takes every item in turn.
 */

/** Where in the shared buffer: whether the list was said yet, its length, its digest, the next item. */
const STATE = 0;
const LENGTH = 1;
const DIGEST = 2;
const CURSOR = 3;
const SLOTS = 4;
/** STATE's values: nobody has come yet; the first is writing the list's length and digest; written. */
const NOBODY = 0;
const SAYING = 1;
const SAID = 2;

/** The buffer two threads share a cursor through, or undefined where the runtime shares no memory. */
export function sharedCursor(): SharedArrayBuffer | undefined {
  return typeof SharedArrayBuffer === "function" && typeof Atomics === "object"
    ? new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT)
    : undefined;
}

/** A 32-bit FNV-1a digest of the items, each ended by a NUL (which no file name holds). */
function digestOf(items: readonly string[]): number {
  let h = 0x811c9dc5;
  for (const item of items) {
    for (let i = 0; i < item.length; i++) h = Math.imul(h ^ item.charCodeAt(i), 0x01000193);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The function that hands this thread its next index into `items` (an index at or past the end:
 * nothing is left), or undefined when the other thread came first with another list (it then
 * takes every item itself).
 */
export function taker(buffer: SharedArrayBuffer | undefined, items: readonly string[]): (() => number) | undefined {
  if (!buffer) {
    let next = 0;
    return () => next++;
  }
  const shared = new Int32Array(buffer);
  const digest = digestOf(items);
  if (Atomics.compareExchange(shared, STATE, NOBODY, SAYING) === NOBODY) {
    Atomics.store(shared, LENGTH, items.length);
    Atomics.store(shared, DIGEST, digest);
    Atomics.store(shared, STATE, SAID);
  } else {
    // The first is between two stores: a few instructions, never a wait on anything else.
    while (Atomics.load(shared, STATE) !== SAID);
    if (Atomics.load(shared, LENGTH) !== items.length || Atomics.load(shared, DIGEST) !== digest) return undefined;
  }
  return () => Atomics.add(shared, CURSOR, 1);
}
