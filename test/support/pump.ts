/**
 * Texts pumped from a redaction rule: its hints, the characters of each class in its pattern, its own worst cases, the
 * gate's own `[redacted:` markers after its hints, and every other rule's output. The test and `npm run bench:redact`
 * use the same seeds.
 */
import type { Rule } from "../../src/lib/redact.ts";

/** A few characters of each class in a pattern's source (`[A-Za-z0-9_-]` gives `Aa0_-`), and its hints. */
export function parts(rule: Rule): string[] {
  const source = rule.pattern?.source ?? "";
  const classes = [...source.matchAll(/\[((?:\\.|[^\]\\])+)\]/g)].map((m) => {
    const inner = m[1]!.replace(/^\^/, "");
    const chars = [...inner.matchAll(/(\\.|[^\\])(?:-(\\.|[^\\]))?/g)].map((c) =>
      c[1]!.startsWith("\\") ? (c[1] === "\\t" ? "\t" : c[1]!.slice(1)) : c[1]!,
    );
    return chars.join("");
  });
  return [...new Set([...rule.hints, ...classes.filter((c) => c.length > 0)])];
}

/** The rules written as code have no pattern to pump from: their own worst cases, by hand. */
export const SCANNED: Record<string, string[]> = {
  assignment: [
    "authenticationMiddlewareConfigurationOptions",
    "a=a=",
    "token:",
    `${"x".repeat(300)}_secret = "`,
    "passpasspass",
    'password="',
    "pass='pass=",
  ],
  jwt: ["eyJ", "-eyJ", "eyJyeeJy---", "eyJaaaaaaaaaaaa.", "eyJaaaaaaaaaaaa.bbbbbbbbbbbb."],
  "private-key": [
    "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nAAAAAAAA",
    "-----BEGIN PRIVATE KEY-----\r\nProc-Type: 4\r\n",
    " AAAAAAAAAAAAAAAAAAAA",
    "MIIEowIBAAKCAQEA",
    "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \\\n",
  ],
  "putty-key": ["PuTTY-User-Key-File-3: ", "PuTTY-User-Key-File-3:\nAAAAAAAAAA\n", "Private-Lines: 1\n"],
  "mysql-password": ["mysql -p", "mysql -pX ", "mysql\n"],
};

/** Every seed for `rule`: its parts, its worst cases, the gate's markers after its hints, the other rules' output. */
export function seeds(rule: Rule, all: readonly Rule[]): string[] {
  const ps = parts(rule);
  const out = [...ps];
  for (const h of rule.hints.slice(0, 3)) for (const p of ps) out.push(`${h}${p.repeat(8)}`);
  out.push(ps.join(""));
  out.push(...(SCANNED[rule.name] ?? []));
  for (const h of rule.hints.slice(0, 3))
    out.push(`${h}=[redacted:`, `${h}=[redacted:${rule.name}]`, `${h}: [redacted:${rule.name}] `, `${h}[redacted:`);
  // Every other rule's output, each after this rule's first hint, in one seed.
  out.push(all.map((other) => `[redacted:${other.name}]${rule.hints[0] ?? ""}=`).join(""));
  return [...new Set(out)];
}
