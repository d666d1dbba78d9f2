// A key header with no END line, as an agent writing about key-handling code puts it in prose, in
// every section of a handover, a checkpoint, a question and a decision, through the binary:
// redaction takes the header and the key material right after it, never the text beyond, so the
// Next Action survives and the next briefing quotes it; the section check sees the stored text,
// and a write whose redaction would empty a required section is refused with nothing stored.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { layered, ok, records } from "../support/layered.ts";

const MATERIAL = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw";
const HEADERS = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "-----BEGIN PGP PRIVATE KEY BLOCK-----",
  "-----BEGIN EC PRIVATE KEY-----",
  "-----BEGIN ENCRYPTED PRIVATE KEY-----",
  "-----BEGIN PRIVATE KEY-----",
  "PuTTY-User-Key-File-3: ssh-ed25519",
];

/** The ways an agent writes a header: inline in a sentence, in quotes, on its own line with key material after it. */
const shapes = (header: string) => [
  `src/keys.ts now reads files whose first line is ${header} and parses the header.`,
  `The loader rejects "${header}" without its END line.`,
  `${header}\n${MATERIAL}\n${MATERIAL}`,
];

/** The rest of an ordinary account: a key is never most of it. */
const STATE =
  "The PEM reader handles RSA, EC and PKCS#8 keys; encrypted keys ask for a passphrase through the prompt module. The error messages name the file and the line. The tests in test/keys.test.ts cover every shape but the PuTTY one.";

const handover = (where: "Objective" | "Current State" | "Next Action", text: string) =>
  [
    "# Objective",
    where === "Objective" ? `Key loading.\n${text}` : "Key loading.",
    "",
    "# Current State",
    `${where === "Current State" ? `The parser is done.\n${text}` : "The parser is done."}\n${STATE}`,
    "",
    "# Next Action",
    where === "Next Action"
      ? `${text}\nThen wire the loader into src/cli.ts and run the tests.`
      : "Wire the loader into src/cli.ts and run the tests.",
    "",
  ].join("\n");

describe("a key header without its END line", () => {
  test("in every section of a handover, each shape: the key goes, the rest stays, the Next Action reaches the next briefing", () => {
    using repo = layered();
    let n = 0;
    for (const header of HEADERS)
      for (const text of shapes(header))
        for (const where of ["Objective", "Current State", "Next Action"] as const) {
          const run = ok(repo.mj(["handover"], { input: handover(where, text) }));
          expect(run.stderr).toContain("secret(s) redacted from the handover");
          const stored = readFileSync(repo.path(run.stdout.trim()), "utf8");
          const label = `${header} / ${where} / ${text.slice(0, 20)}`;
          expect({ label, material: stored.includes(MATERIAL), header: stored.includes(header) }).toEqual({
            label,
            material: false,
            header: false,
          });
          // Everything after the key's own lines is kept: the rest of the sentence, and every section.
          expect({ label, next: stored.includes("ire the loader into src/cli.ts and run the tests.") }).toEqual({
            label,
            next: true,
          });
          expect(stored).toContain("# Current State\nThe parser is done.");
          if (text.includes(" and parses the header.")) expect(stored).toContain(" and parses the header.");
          const resolved = ok(repo.mj(["handover", "--resolve"])).stdout;
          expect(resolved).toContain("ire the loader into src/cli.ts and run the tests.");
          expect(resolved).not.toContain("It has no Next Action section.");
          n++;
        }
    expect(n).toBe(HEADERS.length * 3 * 3);
  });

  test("in a checkpoint, a question and a decision: the key goes, the rest of the text stays", () => {
    using repo = layered();
    for (const header of HEADERS) {
      const text = `src/keys.ts now reads files whose first line is ${header} and parses the header.`;
      ok(repo.mj(["checkpoint"], { input: `${text}\n${header}\n${MATERIAL}\n${STATE}\nNext: the loader.\n` }));
      const checkpoint = ok(repo.mj(["checkpoint", "--show"])).stdout;
      expect(checkpoint).not.toContain(MATERIAL);
      expect(checkpoint).toContain("Next: the loader.");
      expect(checkpoint).toContain(" and parses the header.");
      ok(repo.mj(["question", "add", `Is ${header} still accepted by the parser?`]));
      ok(
        repo.mj(["decision", `Reject ${header} blocks`, "--why", "they have no END line and the parser stays strict"]),
      );
    }
    const questions = ok(repo.mj(["question", "list"])).stdout;
    expect(questions).not.toContain("-----BEGIN");
    expect(questions.match(/still accepted by the parser\?/g)?.length).toBe(HEADERS.length);
    const decisions = readFileSync(repo.path(".ai/local/state/decisions.md"), "utf8");
    expect(decisions).not.toContain("-----BEGIN");
    expect(decisions.match(/they have no END line and the parser stays strict/g)?.length).toBe(HEADERS.length);
  });

  test("a Next Action that is only a key, or a text that is mostly one: the write is refused, naming why, and nothing is stored", () => {
    using repo = layered();
    const body = `# Objective\nKeys.\n\n# Current State\n${STATE}\n\n# Next Action\n-----BEGIN RSA PRIVATE KEY-----\n${MATERIAL}\n`;
    const run = repo.mj(["handover"], { input: body });
    expect(run.status).toBe(10);
    expect(run.stderr).toContain(
      "redacting the handover would remove its required section(s) Next Action; nothing was stored",
    );
    expect(run.stderr).not.toContain(MATERIAL);
    expect(records(repo, "handovers")).toEqual([]);
    // Nothing of it reached the ledger either.
    const ledger = readdirSync(repo.path(".ai/local/state")).includes("ledger.jsonl")
      ? readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
      : "";
    expect(ledger).not.toContain("task.handed_over");
    const mostly = repo.mj(["checkpoint"], {
      input: `Keys.\n-----BEGIN RSA PRIVATE KEY-----\n${MATERIAL}\n${MATERIAL}\n${MATERIAL}\n`,
    });
    expect(mostly.status).toBe(10);
    expect(mostly.stderr).toMatch(
      /redaction would remove most of the checkpoint \(\d+ of \d+ characters\); nothing was stored/,
    );
    expect(records(repo, "checkpoints")).toEqual([]);
  });
});
