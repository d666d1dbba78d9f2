// The line hash of a cited file's line maps must be the same number in every runtime: Bun's native
// CRC-32, and the one computed in JavaScript where there is none (Deno, Node).
import { describe, expect, test } from "bun:test";
import { crc32, portableCrc32 } from "../../src/lib/runtime.ts";

describe("crc32", () => {
  test("the portable CRC-32 agrees with Bun's on ASCII, accents, astral characters and a lone surrogate", () => {
    const samples = ["", "abc", "é", "naïve café", "𝄞 music", "\ud800 alone", "tab\tand\r\n", "x".repeat(10_000)];
    let seed = 11;
    for (let i = 0; i < 300; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      samples.push(
        String.fromCodePoint(...Array.from({ length: seed % 40 }, (_, j) => ((seed >> (j % 16)) % 0x2fff) + 32)),
      );
    }
    for (const s of samples) expect(portableCrc32(s)).toBe(Bun.hash.crc32(s));
    expect(crc32("abc")).toBe(0x352441c2);
  });
});
