// Every rule pumped with its own pattern's parts, with the gate's own `[redacted:` markers and with every other rule's
// output, at 8 to 64 KB, through the gate as the hooks run it (the JIT off, in a process of its own): what follows the
// pumped text is never kept, whether the gate finished or masked. How long each takes is `npm run bench:redact`'s to
// report (a time is not a verdict); here a quadratic rule would only be slow, so the test also counts the scans' steps.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";

const SIZES = [8_192, 16_384, 32_768, 65_536];

/**
 * In a child with the JIT off: the whole gate over every seed of every rule at 64 KB, a secret after it; and each scan
 * rule alone over its seeds at every size, counting its steps.
 */
const CHILD = `
import { REDACTIONS, redactShapes, UNSCANNED } from "${join(PROJECT, "src", "lib", "redact.ts")}";
import { Deadline } from "${join(PROJECT, "src", "lib", "redact", "deadline.ts")}";
import { seeds } from "${join(PROJECT, "test", "support", "pump.ts")}";
const SECRET = "Pr0dDbP4ssW0rd";
const fill = (seed, size) => seed.repeat(Math.ceil(size / seed.length)).slice(0, size);
const gate = [];
const steps = [];
for (const rule of REDACTIONS)
  for (const seed of seeds(rule, REDACTIONS)) {
    const got = redactShapes(fill(seed, 65536) + "\\nDB_PASSWORD=" + SECRET + " and the rest\\n");
    gate.push({ rule: rule.name, seed: seed.slice(0, 60), kept: got.includes(SECRET), masked: got === UNSCANNED });
    if (!rule.scan) continue;
    const counted = ${JSON.stringify(SIZES)}.map((size) => {
      const d = new Deadline(Infinity);
      rule.scan(fill(seed, size), (kept) => kept + "[redacted:x]", d);
      return d.steps;
    });
    steps.push({ rule: rule.name, seed: seed.slice(0, 60), counted });
  }
console.log(JSON.stringify({ gate, steps }));
`;

describe("every rule pumped with its own parts, the gate's markers and the other rules' output", () => {
  test("64 KB through the gate, the JIT off: the secret after the pumped text is never kept, and our own markers are never masked; every scan's steps grow no faster than its input from 8 to 64 KB", () => {
    const run = spawnSync(process.execPath, ["-e", CHILD], {
      cwd: PROJECT,
      encoding: "utf8",
      env: { ...process.env, BUN_JSC_useJIT: "0", MAJORDOMUS_LOG: "silent" },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.status, run.stderr).toBe(0);
    const { gate, steps } = JSON.parse(run.stdout) as {
      gate: Array<{ rule: string; seed: string; kept: boolean; masked: boolean }>;
      steps: Array<{ rule: string; seed: string; counted: number[] }>;
    };
    expect(gate.length).toBeGreaterThan(500);
    expect(gate.filter((r) => r.kept)).toEqual([]);
    expect(gate.filter((r) => r.masked && r.seed.includes("[redacted:"))).toEqual([]);
    // Linear: eight times the input, about eight times the steps (ten allowed, for where a seed's pattern falls).
    const grown = steps.filter((s) => s.counted[3]! > 10 * s.counted[0]! + 256);
    expect(grown).toEqual([]);
    expect(steps.length).toBeGreaterThan(50);
  }, 600_000);
});
