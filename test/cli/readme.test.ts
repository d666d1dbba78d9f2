// The README is the adopter's manual: its command reference renders as one table naming every
// command of the command table, and it speaks of the product, not of our issue tracker.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { PROJECT } from "../support/env.ts";

const README = readFileSync(join(PROJECT, "README.md"), "utf8");

describe("README", () => {
  test("the command reference is one table (no blank line splits it) naming every command", () => {
    const lines = README.split("\n");
    const start = lines.indexOf("| command | what it does |");
    expect(start).toBeGreaterThan(0);
    const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
    const table = lines.slice(start, end);
    expect(lines[end]).toBe("");
    expect(lines[end + 1]).not.toMatch(/^\|/);
    for (const name of Object.keys(COMMANDS)) expect(table.some((row) => row.includes(`\`majordomus ${name}`)), name).toBe(true);
  });

  test("it names no internal issue numbers", () => {
    expect(README.match(/.{0,40}\bissues? \d+.{0,20}/gi) ?? []).toEqual([]);
  });

  test("every JSON kind it lists has its schema in share/schemas/cli", () => {
    const section = README.split("### JSON")[1]!.split("### ")[0]!;
    const kinds = [...section.matchAll(/^\| (`[a-z-]+`(?:, `[a-z-]+`)*) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([a-z-]+)`/g)].map((k) => k[1]!));
    expect(kinds.length).toBeGreaterThanOrEqual(20);
    for (const kind of kinds) expect(() => readFileSync(join(PROJECT, "share", "schemas", "cli", `${kind}.schema.json`))).not.toThrow();
  });
});
