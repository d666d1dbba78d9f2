import type { Problem } from "../lib/schema.ts";

/** `file: key.path: message` lines, the form every validation failure is reported in. */
export function describeProblems(file: string, problems: readonly Problem[]): string[] {
  return problems.map((p) => `${file}: ${p.path === "" ? "(top level)" : p.path}: ${p.message}`);
}
