// Redaction no input can switch off: every pattern of the gate is checked by a ReDoS checker
// (recheck, from npm), so a new rule that backtracks fails the build; a rule that gives up or fails
// masks its text instead of keeping it; and the identifiers that used to stall the name-and-value
// rule (and then let the password after them through) are ordinary words now. How each rule grows
// on input pumped from it, JIT off, is measured by `npm run bench:redact`, not timed here.
import { describe, expect, test } from "bun:test";
import { linearity } from "../support/recheck.ts";
import { REDACTIONS, TOKENISH, UNSCANNED, redact, redactShapes, redactWith } from "../../src/lib/redact.ts";
import { SCAN_PATTERNS } from "../../src/lib/redact/scan.ts";

/** Every pattern the gate runs, by where it comes from. */
const PATTERNS: Array<[string, RegExp]> = [
  ...REDACTIONS.flatMap((r) => [
    ...(r.pattern ? [[r.name, r.pattern] as [string, RegExp]] : []),
    ...(r.when ? [[`${r.name} (when)`, r.when] as [string, RegExp]] : []),
  ]),
  ...SCAN_PATTERNS.map((p, i) => [`scan pattern ${i}`, p] as [string, RegExp]),
  ["tokenish", TOKENISH],
];

/** The name-and-value pattern the gate used before: a starred group with an optional separator inside it. */
const BACKTRACKING =
  "(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]*(?:passw(?:or)?d|pwd|pass|secret|token|auth|sig)(?:[_.-]?[A-Za-z0-9]+)*";

describe("every pattern of the gate is linear", () => {
  test("the checker finds the backtracking pattern the gate used before", () => {
    expect(linearity(BACKTRACKING, "").status).toBe("vulnerable");
  }, 300_000);

  test.each(PATTERNS)(
    "%s: recheck calls it safe",
    (_name, pattern) => {
      const verdict = linearity(pattern.source, pattern.flags);
      expect({
        status: verdict.status,
        attack: verdict.status === "vulnerable" ? verdict.attack.pattern : null,
      }).toEqual({
        status: "safe",
        attack: null,
      });
    },
    300_000,
  );
});

describe("failing closed", () => {
  const DB = "DB_PASSWORD=Pr0dDbP4ss";
  test("a rule the engine gives up on (the old backtracking one, on the identifier that stalls it) masks the text, never keeps it", async () => {
    const rule = {
      name: "old-assignment",
      hints: ["pass", "auth"],
      pattern: new RegExp(`(${BACKTRACKING}\\s*=\\s*)\\S+`, "g"),
      keep: 1,
    };
    const text = `authenticationMiddlewareConfigurationOptions ${DB}`;
    // Its time bound is set at what a linear rule needs for a text this small.
    const out = await redactWith(text, { rules: [rule], budgetMs: () => 5 });
    expect(out.text as string).toBe(UNSCANNED);
    expect(out.redacted).toContain("unscanned");
  }, 300_000);

  test("a rule that throws masks the text", async () => {
    const rule = {
      name: "broken",
      hints: ["pass"],
      scan: () => {
        throw new Error("a rule that cannot run");
      },
    };
    const out = await redactWith(`here ${DB}`, { rules: [rule] });
    expect(out.text as string).toBe(UNSCANNED);
    expect(redactShapes(`here ${DB}`)).not.toContain("Pr0dDbP4ss");
  });
});

/** Identifiers of `n` letters without separators, each with a keyword at a position. */
function identifiers(): string[] {
  const out: string[] = [];
  const letters = "configurationmiddlewareproviderthemecontextvalueoptionswrapperhandler";
  for (const keyword of ["auth", "pass", "token", "secret", "sig", "key", "pwd", "credential"])
    for (const n of [30, 44, 80, 200])
      for (const at of [0, Math.floor(n / 2), n - keyword.length]) {
        const base = letters.repeat(4).slice(0, n - keyword.length);
        out.push(base.slice(0, at) + keyword + base.slice(at));
      }
  return out;
}

describe("an ordinary identifier before a secret", () => {
  const NAMED = [
    "authenticationMiddlewareConfigurationOptions",
    "useDesignSystemThemeProviderContextValue",
    "PASSWORD_RESET_TOKEN_EXPIRATION_SECONDS_DEFAULT",
    "src/components/AuthenticationProviderWrapper.tsx",
  ];
  test.each(NAMED)("%s, then DB_PASSWORD=…: the password goes, the identifier stays", async (word) => {
    const out = (await redact(`${word} DB_PASSWORD=Pr0dDbP4ss and the rest`)).text;
    expect(out).not.toContain("Pr0dDbP4ss");
    expect(out).toContain(word);
    expect(out).toContain("DB_PASSWORD=[redacted:assignment] and the rest");
  });

  test("generated ones, 30 to 200 letters with each keyword at each position: every password goes", async () => {
    const words = identifiers();
    expect(words.length).toBe(8 * 4 * 3);
    const kept: string[] = [];
    for (const word of words) {
      const text = `${word} DB_PASSWORD=Pr0dDbP4ss; ${word}=value ${word}: other`;
      if ((await redact(text)).text.includes("Pr0dDbP4ss")) kept.push(word);
    }
    expect(kept).toEqual([]);
  });

  test("a name longer than any looked at is judged by its end: its value goes too", () => {
    const name = `${"a".repeat(5_000)}_TOKEN`;
    expect(redactShapes(`${name}=S3cretValue123`) as string).toBe(`${name}=[redacted:assignment]`);
  });
});
