// Every private-key armor majordomus can name, with and without its END line, in CRLF and LF, with a body from 1 KB
// to 64 KB and the person's prose around it (`Word: text` lines right after the header included): the key goes whole,
// every line that is not key material stays.
import { describe, expect, test } from "bun:test";
import { redactShapes } from "../../src/lib/redact.ts";

/** A deterministic body: base64 lines of 64 characters, `bytes` long, starting with `first`. */
function body(bytes: number, first = ""): string[] {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let seed = bytes;
  const next = () => alphabet[(seed = (seed * 1103515245 + 12345) % 2147483648) % 64]!;
  const all = first + Array.from({ length: Math.max(0, bytes - first.length) }, next).join("");
  return all.match(/.{1,64}/g)!;
}

type Armor = {
  name: string;
  head: string;
  headers: string[];
  blank: boolean;
  tail: string[];
  end: string;
  der?: string;
};

const ARMORS: Armor[] = [
  {
    name: "PEM RSA",
    head: "-----BEGIN RSA PRIVATE KEY-----",
    headers: [],
    blank: false,
    tail: [],
    end: "-----END RSA PRIVATE KEY-----",
    der: "MIIEowIBAAKCAQEA",
  },
  {
    name: "PEM RSA, encrypted",
    head: "-----BEGIN RSA PRIVATE KEY-----",
    headers: ["Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,3F17F5316E2BAC89"],
    blank: true,
    tail: [],
    end: "-----END RSA PRIVATE KEY-----",
  },
  {
    name: "PKCS#8",
    head: "-----BEGIN PRIVATE KEY-----",
    headers: [],
    blank: false,
    tail: [],
    end: "-----END PRIVATE KEY-----",
    der: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
  },
  {
    name: "PKCS#8 encrypted",
    head: "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    headers: [],
    blank: false,
    tail: [],
    end: "-----END ENCRYPTED PRIVATE KEY-----",
  },
  {
    name: "EC",
    head: "-----BEGIN EC PRIVATE KEY-----",
    headers: [],
    blank: false,
    tail: [],
    end: "-----END EC PRIVATE KEY-----",
    der: "MHcCAQEEIBkg",
  },
  {
    name: "OpenSSH",
    head: "-----BEGIN OPENSSH PRIVATE KEY-----",
    headers: [],
    blank: false,
    tail: [],
    end: "-----END OPENSSH PRIVATE KEY-----",
    der: "b3BlbnNzaC1rZXktdjEAAAAA",
  },
  {
    name: "PGP",
    head: "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    headers: ["Version: GnuPG v2", "Comment: a key of mine"],
    blank: true,
    tail: ["=AbC9"],
    end: "-----END PGP PRIVATE KEY BLOCK-----",
  },
  {
    name: "RFC 4716",
    head: "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
    headers: ["Subject: me", 'Comment: "rsa-key-2024 for the \\', 'deploy box"'],
    blank: false,
    tail: [],
    end: "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
  },
  {
    name: "PuTTY",
    head: "PuTTY-User-Key-File-3: ssh-ed25519",
    headers: ["Encryption: none", "Comment: ed25519-key-20240101", "Public-Lines: 2"],
    blank: false,
    tail: ["Private-Lines: 1", "Gq7TgT0sPzrzG1t2wOmD3H7yL9Tgpl7Lk1mJv4QeQy8A"],
    end: "Private-MAC: 3b4f0a9c2d1e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
  },
];

/** What the person wrote around it, `Word: text` lines right after the key included. */
const BEFORE = ["# Current State", "The loader now reads the deploy key below.", "Note: it came from the vault."];
const AFTER = ["Note: rotate it after the release.", "Next: wire the loader into src/cli.ts and run the tests."];

function pasted(a: Armor, bytes: number, withEnd: boolean): { text: (eol: string) => string; key: string[] } {
  const lines = body(bytes, a.der);
  const key = [...lines, ...a.tail];
  const block = [a.head, ...a.headers, ...(a.blank ? [""] : []), ...key, ...(withEnd ? [a.end] : [])];
  return { text: (eol) => [...BEFORE, ...block, ...AFTER].join(eol), key };
}

describe("private-key armor", () => {
  for (const a of ARMORS)
    test(`${a.name}: gone whole at 1 to 64 KB, with or without END, LF or CRLF; every line of the person's kept`, () => {
      for (const bytes of [1_024, 8_192, 65_536])
        for (const withEnd of [true, false])
          for (const eol of ["\n", "\r\n"]) {
            const { text, key } = pasted(a, bytes, withEnd);
            const out = redactShapes(text(eol)) as string;
            const label = `${bytes} ${withEnd ? "END" : "no END"} ${eol === "\n" ? "LF" : "CRLF"}`;
            const kept = key.filter((line) => line.length >= 8 && out.includes(line));
            expect({ label, kept: kept.length }).toEqual({ label, kept: 0 });
            for (const line of [...BEFORE, ...AFTER])
              expect({ label, line, kept: out.includes(line) }).toEqual({ label, line, kept: true });
            expect(out).toContain("[redacted:");
          }
    });

  test("a DER key body right after a sentence that names its header, and on the header's own line", () => {
    const der = body(2_048, "MIIEowIBAAKCAQEA");
    const prose = "The file begins -----BEGIN RSA PRIVATE KEY----- and then:";
    const out = redactShapes([prose, ...der, "That was all of it."].join("\n")) as string;
    expect(der.filter((l) => out.includes(l))).toEqual([]);
    expect(out).toContain(" and then:");
    expect(out).toContain("That was all of it.");
    const bare = redactShapes(["Here it is:", ...der, "Done."].join("\n")) as string;
    expect(der.filter((l) => bare.includes(l))).toEqual([]);
    expect(bare).toContain("Here it is:");
    expect(bare).toContain("Done.");
  });

  test("headers named in prose take nothing that is not key material: a line of text after one, `Word: text` lines, a certificate", () => {
    const text = [
      "Files start with -----BEGIN PRIVATE KEY----- and the parser rejects them.",
      "Comment: this line is mine.",
      "Status: the parser is done.",
      "Version: 2 of the loader.",
      "-----BEGIN CERTIFICATE-----",
      "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
      "-----END CERTIFICATE-----",
    ].join("\n");
    const out = redactShapes(text) as string;
    for (const line of text.split("\n").slice(1)) expect(out).toContain(line);
    expect(out).toContain(" and the parser rejects them.");
  });
});
