/**
 * Reading a YAML document majordomus checks against a schema (the manifest, the policy): parse, validate, run the
 * checks a schema cannot express, and report every problem at once, each as `file: key.path: message`.
 */
import { readData } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";
import { parseYaml, YamlSyntaxError } from "../lib/runtime.ts";
import { validate, type Problem, type Schema } from "../lib/schema.ts";

export type DocumentKind<T> = {
  /** What the document is, for messages: "policy", "ai-repository/v1 manifest". */
  noun: string;
  schema: string;
  /** What to do about a syntax error. */
  syntaxHint: string;
  /** Runs before the schema; may throw its own failure (e.g. a newer format version). */
  precheck?: (data: unknown, file: string) => void;
  /** Rules across keys, run once the schema passes; each returns full problem lines. */
  crossChecks?: (data: T, file: string) => string[];
};

export function describeProblems(file: string, problems: readonly Problem[]): string[] {
  return problems.map((p) => `${file}: ${p.path === "" ? "(top level)" : p.path}: ${p.message}`);
}

export async function parseDocument<T>(
  kind: DocumentKind<T>,
  text: string,
  file: string,
  options: { strict?: boolean } = {},
): Promise<T> {
  let data: unknown;
  try {
    data = await parseYaml(text, options);
  } catch (err) {
    if (err instanceof YamlSyntaxError)
      throw new Failure("contract", `${file}: not valid YAML: ${err.message}`, kind.syntaxHint, err.frame);
    throw err;
  }
  if (data === null || data === undefined)
    throw new Failure(
      "contract",
      `${file} is empty; a ${kind.noun} is a YAML mapping`,
      "remove the empty file and run `majordomus init --extend`, which writes the default one",
    );
  kind.precheck?.(data, file);
  const problems = describeProblems(file, validate((await readData(kind.schema)) as Schema, data));
  if (problems.length === 0 && kind.crossChecks) problems.push(...kind.crossChecks(data as T, file));
  if (problems.length > 0) {
    const unknownKeys = problems.some((p) => p.endsWith(": is not a known key"));
    const hint = `correct each key named above${unknownKeys ? `; the ${kind.noun} schema allows no other keys` : ""}`;
    throw new Failure(
      "contract",
      `${file} is not a valid ${kind.noun} (${problems.length} problem(s))`,
      hint,
      problems,
    );
  }
  return data as T;
}
