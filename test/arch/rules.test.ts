// Architecture rules, checked on the source text so a violation fails the build, not a review.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { PROJECT } from "../support/env.ts";

const SRC = join(PROJECT, "src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith(".ts") ? [full] : [];
  });
}

const SOURCES = files(SRC).map((path) => ({ rel: relative(SRC, path), text: readFileSync(path, "utf8") }));
/** Source without comments, so prose about a rule does not count as breaking it. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

describe("architecture", () => {
  test("the domain never imports the CLI layer or citty", () => {
    // main.ts is the entry point that hands over to the CLI layer; it is not domain code.
    const offenders = SOURCES.filter((f) => !f.rel.startsWith("cli/") && f.rel !== "main.ts" && /from\s+["'](citty|[./]+cli\/)/.test(code(f.text))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("nothing calls process.exit; only main.ts and cli/run.ts decide exit codes", () => {
    expect(SOURCES.filter((f) => /process\.exit\s*\(/.test(code(f.text))).map((f) => f.rel)).toEqual([]);
    expect(SOURCES.filter((f) => /process\.exitCode\s*=/.test(code(f.text))).map((f) => f.rel)).toEqual(["main.ts"]);
  });

  test("stdout is written by the CLI layer alone (the domain returns data, never prints it)", () => {
    const offenders = SOURCES.filter((f) => !f.rel.startsWith("cli/") && f.rel !== "main.ts" && /console\.log\(|process\.stdout/.test(code(f.text))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("Bun-only APIs live in lib/runtime.ts alone", () => {
    const offenders = SOURCES.filter((f) => f.rel !== "lib/runtime.ts" && /\bBun\.|["']bun:|globalThis\.Bun|\)\.Bun\b/.test(code(f.text))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("built-in modules are imported as node:*", () => {
    const bare = /from\s+["'](fs|path|os|crypto|child_process|util|url)(\/[a-z]+)?["']/;
    expect(SOURCES.filter((f) => bare.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  test("no policy threshold is repeated as a literal in src/", () => {
    // The freshness thresholds and the other distinctive policy numbers live in the policy only.
    const policy = readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8");
    const numbers = [...policy.matchAll(/:\s*(\d{3,})\s*$/gm)].map((m) => m[1]!);
    expect(numbers).toContain("720");
    expect(numbers).toContain("2880");
    const offenders: string[] = [];
    for (const f of SOURCES) {
      for (const n of numbers) if (new RegExp(`(?<![\\w.])${n}(?![\\w.])`).test(code(f.text))) offenders.push(`${f.rel}: ${n}`);
    }
    expect(offenders).toEqual([]);
  });

  test("every ledger event written in src/ is registered, and every registered event has a writer", () => {
    const registered = [...readFileSync(join(PROJECT, "share/events.yaml"), "utf8").matchAll(/^ {2}([a-z_]+\.[a-z_.]+):\s*$/gm)].map((m) => m[1]!);
    // Written directly, or through the record kinds table (`event: "…"`).
    const direct = /appendEvent\((?:[^()"]|\([^()]*\))*?,\s*"([a-z_]+\.[a-z_.]+)"/g;
    const tabled = /\bevent:\s*"([a-z_]+\.[a-z_.]+)"/g;
    const written = new Set(SOURCES.flatMap((f) => [...code(f.text).matchAll(direct), ...code(f.text).matchAll(tabled)].map((m) => m[1]!)));
    expect([...written].filter((e) => !registered.includes(e))).toEqual([]);
    expect(registered.filter((e) => !written.has(e))).toEqual([]);
  });

  test("the exit-code table is the documented vocabulary", async () => {
    const { EXIT } = await import("../../src/lib/failure.ts");
    expect(EXIT).toEqual({ ok: 0, usage: 2, contract: 10, drift: 11, missing: 12, internal: 13, refused: 15 });
  });
});
