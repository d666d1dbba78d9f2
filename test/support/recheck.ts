/**
 * recheck's verdict on a pattern, bounded by its step limits alone (characters read, iterations, generations) and
 * its fixed seed, never by a wall clock: a 2-core machine under load gives the same verdict as a quiet one, where a
 * 30 s timeout turned `safe` into `unknown`.
 */
import { checkSync } from "recheck";

const BY_STEPS = { timeout: null, incubationTimeout: null, seedingTimeout: null, recallTimeout: -1, randomSeed: 0 };

export function linearity(source: string, flags = ""): ReturnType<typeof checkSync> {
  return checkSync(source, flags, BY_STEPS);
}
