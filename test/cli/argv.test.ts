// The argument parser: strict, and every refusal is a usage failure (exit 2) naming the token.
import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { parseArgv } from "../../src/cli/argv.ts";
import { Failure } from "../../src/lib/failure.ts";

const DEFS = {
  task: { type: "positional", description: "what" },
  scope: { type: "string", alias: "s" },
  limit: { type: "string" },
  outcome: { type: "enum", options: ["completed", "partial"] },
  json: { type: "boolean" },
  close: { type: "boolean", default: false },
  profile: { type: "string", default: "implementation" },
} satisfies ArgsDef;

const OPTIONAL = { note: { type: "positional", required: false }, json: { type: "boolean" } } satisfies ArgsDef;

const parse = (argv: string[], defs: ArgsDef = DEFS) => parseArgv(argv, defs, "majordomus test");

describe("parseArgv accepts", () => {
  test.each([
    [["fix it"], { task: "fix it", close: false, profile: "implementation" }],
    [["fix it", "--scope", "src,docs"], { scope: "src,docs" }],
    [["--scope=src", "fix it"], { scope: "src", task: "fix it" }],
    [["-s", "src", "x"], { scope: "src" }],
    [["x", "--json"], { json: true }],
    [["x", "--json=false"], { json: false }],
    [["x", "--no-close"], { close: false }],
    [["x", "--close"], { close: true }],
    [["x", "--outcome", "partial"], { outcome: "partial" }],
    [["x", "--limit", "-5"], { limit: "-5" }],
    [["x", "--profile", "review"], { profile: "review" }],
    [["--", "--json"], { task: "--json" }],
  ] as Array<[string[], Record<string, unknown>]>)("%p", (argv, expected) => {
    expect(parse(argv)).toMatchObject(expected);
  });

  test("an optional positional may be absent", () => {
    const parsed = parse(["--json"], OPTIONAL);
    expect(parsed.json).toBe(true);
    expect(parsed.note).toBeUndefined();
  });
});

describe("parseArgv refuses", () => {
  test.each([
    [["x", "--bogus"], "unknown option --bogus"],
    [["x", "--bogus=1"], "unknown option --bogus"],
    [["x", "-q"], "unknown option -q"],
    [["x", "--no-scope"], "unknown option --no-scope"],
    [["x", "--scope"], "--scope needs a value"],
    [["x", "--scope", "--json"], "--scope needs a value"],
    [["x", "--json=yes"], "--json takes no value"],
    [["x", "--outcome", "done"], "--outcome must be one of completed, partial"],
    [["x", "--scope", "a", "--scope", "b"], "--scope was given twice"],
    [[], "missing argument <task>"],
    [["x", "y"], 'unexpected argument "y"'],
  ])("%p: %s", (argv, message) => {
    let caught: unknown;
    try {
      parse(argv);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Failure);
    expect((caught as Failure).code).toBe(2);
    expect((caught as Failure).message).toContain(message);
    expect((caught as Failure).hint).toContain("majordomus test --help");
  });
});
