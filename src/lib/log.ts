/**
 * Logging, always to stderr. consola's full build writes `info` to stdout and costs ~19 ms of start-up;
 * `consola/core` with a reporter writing straight to the descriptor costs nothing measurable.
 */
import { createConsola, type ConsolaInstance, type LogObject } from "consola/core";
import { printable } from "./printable.ts";
import { stderrLine } from "./stderr.ts";
import { env } from "./env.ts";

const LEVEL_BY_ENV: Record<string, number> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 };

function levelFromEnv(): number {
  const raw = (env("MAJORDOMUS_LOG") ?? "").toLowerCase();
  return LEVEL_BY_ENV[raw] ?? LEVEL_BY_ENV.info!;
}

const TAG_BY_TYPE: Record<string, string> = {
  warn: "warning",
  error: "error",
  fatal: "error",
  debug: "debug",
  trace: "trace",
};

function report(entry: LogObject): void {
  const label = TAG_BY_TYPE[entry.type];
  const prefix = label ? `majordomus: ${label}:` : "majordomus:";
  const tag = entry.tag ? `[${entry.tag}] ` : "";
  const text = entry.args
    .map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : JSON.stringify(a)))
    .join(" ");
  stderrLine(printable(`${prefix} ${tag}${text}`));
}

const LEVELS = { error: 0, warn: 1, info: 3, debug: 4 } as const;
type Level = keyof typeof LEVELS;

const level = levelFromEnv();
let instance: ConsolaInstance | undefined;

/** consola is set up only for the first line printed: a hook that logs nothing pays nothing. */
function at(type: Level): (...args: unknown[]) => void {
  return (...args) => {
    if (LEVELS[type] > level) return;
    instance ??= createConsola({ level, reporters: [{ log: report }] });
    instance[type](...(args as [unknown, ...unknown[]]));
  };
}

export const log: Record<Level, (...args: unknown[]) => void> = {
  error: at("error"),
  warn: at("warn"),
  info: at("info"),
  debug: at("debug"),
};
