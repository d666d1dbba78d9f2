import { env } from "./env.ts";
/**
 * MAJORDOMUS_TRACE=1 prints, on stderr, how many milliseconds after process start each phase of a
 * command ended, and the process's resident memory then. For finding what a slow hook spends its
 * time on, or what a long command holds; free when unset.
 */
const ON = env("MAJORDOMUS_TRACE") === "1";

export function mark(label: string): void {
  if (ON)
    console.error(
      `majordomus: trace ${performance.now().toFixed(2)} ms ${(process.memoryUsage.rss() / 1048576).toFixed(1)} MiB ${label}`,
    );
}

/** Count and time every external program a command runs (MAJORDOMUS_TRACE=1). */
export function traceSpawn(cmd: string, args: readonly string[], ms: number): void {
  if (!ON) return;
  // The `-c key=value` settings every git call carries are not what it was asked.
  let at = 0;
  while (args[at] === "-c") at += 2;
  const asked = args.slice(at).join(" ").slice(0, 80);
  console.error(
    `majordomus: trace spawn ${ms.toFixed(2)} ms, from ${(performance.now() - ms).toFixed(2)} ms: ${cmd} ${asked}`,
  );
}
