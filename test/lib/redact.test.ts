// Secrets in realistic shapes, sent through the redaction every prompt and payload text passes:
// none may survive. Values are made up here (a seeded generator), in each family's published form.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REDACTIONS, redact, redactShapes } from "../../src/lib/redact.ts";
import { PROJECT } from "../support/env.ts";
import { cases, random as rnd } from "../support/secrets.ts";

describe("redaction", () => {
  test("the corpus has at least 80 shapes", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
  });

  test.each(cases)("%s: the secret does not survive", async (_family, text, secret) => {
    const { text: out, redacted } = await redact(text);
    expect(out).not.toContain(secret);
    expect(redacted.length).toBeGreaterThan(0);
    expect(out).toContain("[redacted:");
  });

  test("inside a long text (a pasted log, where a name-and-value rule runs only where its names are) every secret still goes", async () => {
    const filler = Array.from(
      { length: 60 },
      (_, i) =>
        `2026-11-30T12:00:${String(i % 60).padStart(2, "0")}Z INFO worker-${i % 4} handled request ${i} in ${i * 3} ms`,
    ).join("\n");
    const survivors: string[] = [];
    for (const [family, text, secret] of cases) {
      const long = `${filler}\n${text}\n${filler}`;
      expect(long.length).toBeGreaterThan(4096);
      if ((await redact(long)).text.includes(secret)) survivors.push(family);
    }
    expect(survivors).toEqual([]);
  });

  test("a long text's one-pass hint scan runs the rules a short text's per-hint search runs: the same marks, secret by secret", () => {
    // Plain log lines hold none of the table's hints, so a difference can only come from the scan.
    const filler = Array.from(
      { length: 40 },
      (_, i) =>
        `2026-11-30T12:00:${String(i % 60).padStart(2, "0")}Z INFO worker ${i % 4} handled request ${i} in ${i * 3} ms`,
    ).join("\n");
    const differing: string[] = [];
    for (const [family, text] of cases) {
      const long = `${filler}\n${text}\n${filler}`;
      expect(long.length).toBeGreaterThan(2048);
      const marksOf = (s: string) => (s.match(/\[redacted:[a-z0-9-]+\]/g) ?? []).join(" ");
      if (marksOf(redactShapes(long)) !== marksOf(redactShapes(text))) differing.push(family);
    }
    expect(differing).toEqual([]);
  });

  test("a rule's hints never hide one of its matches (a rule runs only where a hint is)", () => {
    let checked = 0;
    for (const [family, text] of cases) {
      for (const rule of REDACTIONS) {
        if (!rule.pattern || (rule.when && !rule.when.test(text))) continue;
        const matches = text.match(new RegExp(rule.pattern.source, rule.pattern.flags)) ?? [];
        for (const m of matches) {
          checked++;
          // A rule taken only beside what names it gates on the text around the match, not the match.
          const hinted = rule.hints.some((h) => (rule.when ? text : m).toLowerCase().includes(h));
          if (!hinted)
            throw new Error(`${family}: rule ${rule.name} matched ${JSON.stringify(m)} holding none of its hints`);
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
    for (const rule of REDACTIONS) for (const h of rule.hints) expect(h).toBe(h.toLowerCase());
  });

  test("shapes without a prefix are taken only beside what names them: a git SHA, an MD5 and a UUID alone stay", async () => {
    for (const plain of [
      "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it; the md5 is 9e107d9d372bb6826bd81d3542a419d6",
      "run 123e4567-e89b-12d3-a456-426614174000 took 3 s; see https://example.com/docs/a/b and ./src/index.ts",
      "mysql -u root -p -h db.internal app (it asks for the password)",
    ])
      expect((await redact(plain)).text as string).toBe(plain);
  });

  test("ordinary prose and code are left alone", async () => {
    const plain =
      "Please rename getUserPassword() to readPassword and explain what the token bucket does; the password reset flow is in src/auth.";
    expect((await redact(plain)).text as string).toBe(plain);
  });

  test("an error text quoting a payload loses its secret too (the shapes, synchronously)", () => {
    const token = `ghp_${rnd(36)}`;
    expect(redactShapes(`JSON Parse error: Unexpected identifier "${token}"`)).not.toContain(token);
  });
});

describe("what is left alone", () => {
  // Ordinary texts a person pastes: none may lose a character. Counted and printed, so a change
  // that starts eating prose shows its number.
  const corpus = [
    "Refactor the token bucket in src/rate/limiter.ts so the refill happens lazily on take().",
    "The password reset flow lives in src/auth/reset.ts; getUserPassword() should become readPassword().",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main) Merge branch 'feature/ledger-v2'",
    "git log --oneline 9fceb02 a1b2c3d e4f5a6b; git rebase -i HEAD~3",
    "run 123e4567-e89b-12d3-a456-426614174000 finished; trace 4bf92f3577b34da6a3ce929d0e0e4736",
    "https://github.com/acme/billing/pull/482/files#diff-9e107d9d372bb6826bd81d3542a419d6",
    "/home/dev/projects/billing/node_modules/.pnpm/typescript@5.6.3/node_modules/typescript/lib/tsc.js",
    "C:\\Users\\dev\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe --disable-extensions",
    "const sha256 = createHash('sha256').update(buffer).digest('hex'); // 64 hex characters",
    "![logo](data:image/png;base64,iVBORw0KGgo AAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "SELECT id, created_at FROM invoices WHERE customer_id = $1 AND status = 'open' ORDER BY created_at DESC LIMIT 50;",
    "2026-11-30T12:00:07.123Z ERROR [worker-3] at com.example.billing.LedgerClient.post(LedgerClient.java:412) status=503 retry=3",
    "npm ERR! code ERESOLVE npm ERR! ERESOLVE unable to resolve dependency tree for react@19.0.0",
    "The secret to a fast build is caching: keep node_modules between runs and skip the lint step locally.",
    'export PATH="$HOME/.local/bin:$PATH"; export NODE_ENV=production; export LOG_LEVEL=debug',
    "docker run --rm -p 8080:8080 -v $(pwd):/app ghcr.io/acme/billing:1.42.0",
    "mysql -u root -p -h db.internal billing   # it asks for the password",
    "Version 2.1.332 fixed #91614; see anthropics/claude-code#44086 and the changelog entry of 2026-11-02.",
    "function tokenize(input: string): Token[] { return input.split(/\\s+/).map(toToken); }",
    "ssh-keygen -t ed25519 -C dev@example.com -f ~/.ssh/id_ed25519 && cat ~/.ssh/id_ed25519.pub",
    // Lockfiles: integrity hashes and checksums beside package names that say secret or token.
    `"node_modules/@secretlint/core": { "version": "13.1.0", "resolved": "https://registry.npmjs.org/@secretlint/core/-/core-13.1.0.tgz", "integrity": "sha512-${"Qm9vYmFyQmF6UXV4".repeat(5)}Zm9vYmFy==" }`,
    'js-tokens@^4.0.0:\n  version "4.0.0"\n  resolved "https://registry.yarnpkg.com/js-tokens/-/js-tokens-4.0.0.tgz#19203fb59991df98e3a287050d4647cdeaf32499"',
    '[[package]]\nname = "aws-sigv4"\nversion = "1.2.6"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "7d1d4f6e5a0a8e1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899a"',
    "github.com/aws/aws-sdk-go-v2/credentials v1.17.41 h1:7gXo+Axmp+R4Z+AK8YFQO0ZV3L0gizGINCOWxSLY9W8=",
  ];

  test("an authorization scheme is not a secret: a header's placeholder stays, its credential goes", async () => {
    const said = "the API answers `Authorization: Bearer <token>`; send it with the token in the file";
    expect((await redact(said)).text as string).toBe(said);
    const real = (await redact("Authorization: Bearer abcDEF123456789xyz")).text as string;
    expect(real).not.toContain("abcDEF123456789xyz");
    expect(real).toContain("Authorization: Bearer [redacted:");
  });

  test("ordinary prose, code, paths, UUIDs, SHAs, logs, lockfiles and a base64 image are left alone", async () => {
    const changed: string[] = [];
    for (const text of corpus) if ((await redact(text)).text !== (text as string)) changed.push(text);
    console.log(`false positives: ${changed.length} of ${corpus.length} ordinary texts changed`);
    expect(changed).toEqual([]);
  });

  test("the families covered are pinned: each shape rule by name, and the maintained packages it also runs", () => {
    const names = REDACTIONS.map((r) => r.name);
    for (const family of [
      "private-key",
      "anthropic-key",
      "openai-key",
      "github-token",
      "aws-access-key-id",
      "aws-secret-key",
      "google-api-key",
      "google-oauth-token",
      "twilio-key",
      "twilio-auth-token",
      "mailgun-key",
      "discord-bot-token",
      "telegram-bot-token",
      "mysql-password",
      "1password-service-account-token",
      "url-password",
      "assignment",
    ])
      expect(names).toContain(family);
    const source = readFileSync(join(PROJECT, "src/lib/redact.ts"), "utf8");
    expect(names).toContain("age-secret-key");
    expect(source).toContain("@secretlint/secretlint-rule-preset-recommend");
    // The preset bundles the packages beyond its first release: naming them beside it registers them twice.
    const preset = readFileSync(
      join(PROJECT, "node_modules/@secretlint/secretlint-rule-preset-recommend/module/index.js"),
      "utf8",
    );
    for (const pkg of ["anthropic", "openai", "database-connection-string", "1password", "linear"])
      expect(preset).toContain(`@secretlint/secretlint-rule-${pkg}`);
    console.log(
      `secret corpus: ${cases.length} shapes in ${new Set(cases.map(([f]) => f.split(" ")[0])).size} families`,
    );
  });
});
