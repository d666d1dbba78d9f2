// Our parseArgs replaces node:util's inside the binary (see build.ts); it must answer exactly
// as node's does for every shape of argv citty hands it.
import { describe, expect, test } from "bun:test";
import { parseArgs as nodeParseArgs } from "node:util";
import { parseArgs } from "../../src/cli/parse-args.ts";

const OPTIONS = {
  limit: { type: "string" as const },
  event: { type: "string" as const, short: "e" },
  json: { type: "boolean" as const },
  extend: { type: "boolean" as const, short: "x" },
  scope: { type: "string" as const, default: "." },
  close: { type: "boolean" as const, default: false },
};

const CASES: string[][] = [
  [],
  ["--limit", "5"],
  ["--limit=5"],
  ["--limit"],
  ["--limit", "--json"],
  ["--json", "--limit", "7", "extra"],
  ["--json=false"],
  ["-e", "task.started"],
  ["-etask.started"],
  ["-x"],
  ["-xe", "layer.initialized"],
  ["-xj"],
  ["--unknown"],
  ["--unknown=value"],
  ["-z"],
  ["pos1", "--json", "pos2"],
  ["--", "--json", "-x"],
  ["-"],
  ["--scope", "src,docs"],
  ["--close"],
  ["--limit", "1", "--limit", "2"],
  ["--event=a=b"],
  ["-5"],
];

describe("parseArgs matches node:util", () => {
  for (const args of CASES) {
    test(JSON.stringify(args), () => {
      const ours = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: false });
      const node = nodeParseArgs({ args, options: OPTIONS, allowPositionals: true, strict: false });
      expect({ values: { ...ours.values }, positionals: ours.positionals }).toEqual({ values: { ...node.values }, positionals: node.positionals });
    });
  }
});
