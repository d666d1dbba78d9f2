#!/usr/bin/env -S deno run -A
/**
 * Entry point. `--version` answers before anything else loads (it is what install scripts and
 * health checks call); every other command goes through the CLI layer, which returns the exit code.
 */
import { VERSION } from "./lib/version.ts";
import { mark } from "./lib/trace.ts";
import { isHookCommand } from "./cli/hooks.ts";
import { env, setEnv } from "./lib/env.ts";

mark("main");

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  console.log(VERSION);
} else {
  // A client's hooks log only warnings unless told otherwise: what they did is in the ledger
  // (`majordomus history`), and MAJORDOMUS_LOG=info shows it as it happens.
  if (isHookCommand(argv) && env("MAJORDOMUS_LOG") === undefined) setEnv("MAJORDOMUS_LOG", "warn");
  const { run } = await import("./cli/run.ts");
  process.exitCode = await run(argv);
}
