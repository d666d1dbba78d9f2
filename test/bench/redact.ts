/**
 * `npm run bench:redact`: how each redaction rule grows with its input, on the engine the hooks
 * use (the JIT off). Each rule is fed texts pumped from its own parts (its hints, the characters of
 * each of its classes, and the two together) at 1 KB, 100 KB and 1 MB; the slowest of them is
 * printed per size, with the growth from 100 KB to 1 MB (10 for a linear rule). Prints numbers;
 * never asserts (timings are not tests; `test/lib/redact-linear.test.ts` holds the rules to linear).
 */
import { spawnSync } from "node:child_process";
import { REDACTIONS, type Rule } from "../../src/lib/redact.ts";
import { NO_DEADLINE } from "../../src/lib/redact/deadline.ts";
import { seeds } from "../support/pump.ts";

const SIZES = [1_000, 100_000, 1_000_000];
/** A growth over this from 100 KB to 1 MB is flagged (10 is linear; noise and caches give some room). */
const GROWTH_FLAG = 20;

if (process.env.BUN_JSC_useJIT !== "0") {
  // As the hooks run: re-executed with the JIT off, so the regular expressions run in the interpreter.
  const r = spawnSync(process.execPath, [import.meta.path], {
    stdio: "inherit",
    env: { ...process.env, BUN_JSC_useJIT: "0" },
  });
  process.exit(r.status ?? 1);
}

/** Texts of about `size` characters pumped from a rule's seeds (test/support/pump.ts, the test's own). */
function pumped(rule: Rule, size: number): string[] {
  const fill = (seed: string) => seed.repeat(Math.ceil(size / Math.max(1, seed.length))).slice(0, size);
  return seeds(rule, REDACTIONS).map(fill);
}

/** The fastest of three runs of a rule over a text: a collection or the machine's other work inflates a single run. */
function timeRule(rule: Rule, text: string): number {
  const mark = () => "[redacted]";
  let best = Number.POSITIVE_INFINITY;
  for (let n = 0; n < 3; n++) {
    const started = performance.now();
    if (rule.scan) rule.scan(text, mark, NO_DEADLINE);
    else text.replace(new RegExp(rule.pattern!.source, rule.pattern!.flags), mark);
    if (rule.when) rule.when.test(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const rows: string[] = [];
let flagged = 0;
console.log(
  `Redaction rules on pumped input, JIT off (bun ${Bun.version}); the slowest pumped text per size, ms (the fastest of 3 runs each)`,
);
console.log(`${"rule".padEnd(32)}${SIZES.map((s) => `${s / 1000} KB`.padStart(12)).join("")}  growth 100 KB -> 1 MB`);
for (const rule of REDACTIONS) {
  const worst = SIZES.map((size) => Math.max(...pumped(rule, size).map((t) => timeRule(rule, t))));
  const growth = worst[2]! / Math.max(worst[1]!, 0.01);
  const flag = growth > GROWTH_FLAG && worst[2]! > 50 ? "  <- grows faster than its input" : "";
  if (flag) flagged++;
  rows.push(
    `${rule.name.padEnd(32)}${worst.map((ms) => ms.toFixed(1).padStart(12)).join("")}  ${growth.toFixed(1)}x${flag}`,
  );
  console.log(rows.at(-1));
}
console.log(
  flagged === 0
    ? `every rule grows with its input, no faster (10x is linear; under ${GROWTH_FLAG}x or under 50 ms at 1 MB)`
    : `${flagged} rule(s) grow faster than their input`,
);
