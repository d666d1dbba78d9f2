/** Reading a record body from stdin; a terminal on stdin is a usage error, not a hang. */
import { readFileSync } from "node:fs";
import { stdinIsTerminal } from "../lib/stdin.ts";
import { Failure } from "../lib/failure.ts";

export function readBody(command: string): string {
  if (stdinIsTerminal()) {
    throw new Failure(
      "usage",
      `${command} reads its body from stdin, and stdin is a terminal`,
      `pipe it in: \`${command} < body.md\`, or use --derive`,
    );
  }
  try {
    return readFileSync(0, "utf8");
  } catch {
    return "";
  }
}
