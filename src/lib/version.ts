/**
 * The version, from package.json. The build defines MAJORDOMUS_VERSION as a constant; when the
 * source runs directly (bun run, deno run, tests) the package.json beside `src/` is read.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

declare const MAJORDOMUS_VERSION: string | undefined;

function fromPackageJson(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname ?? ".", "..", "..", "package.json"), "utf8"));
    return typeof pkg.version === "string" ? pkg.version : "0.0.0-dev";
  } catch {
    return "0.0.0-dev";
  }
}

export const VERSION: string = typeof MAJORDOMUS_VERSION === "string" ? MAJORDOMUS_VERSION : fromPackageJson();

/** How the ledger names its writer. */
export const WRITER = `majordomus/${VERSION}`;
