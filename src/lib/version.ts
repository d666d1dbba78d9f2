/**
 * The version, from package.json. The build also defines MAJORDOMUS_VERSION as a constant, so
 * the binary's `--version` touches nothing but this module.
 */
import pkg from "../../package.json" with { type: "json" };

declare const MAJORDOMUS_VERSION: string | undefined;

export const VERSION: string = typeof MAJORDOMUS_VERSION === "string" ? MAJORDOMUS_VERSION : pkg.version;

export const WRITER = `majordomus/${VERSION}`;
