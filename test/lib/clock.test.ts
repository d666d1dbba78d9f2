import { afterEach, describe, expect, test } from "bun:test";
import {
  compactStamp,
  isIsoTime,
  isoStamp,
  now,
  parseDuration,
  parseIsoTime,
  parseSince,
} from "../../src/lib/clock.ts";
import { Failure } from "../../src/lib/failure.ts";

afterEach(() => {
  delete process.env.MAJORDOMUS_NOW;
});

describe("clock", () => {
  test("MAJORDOMUS_NOW injects the time", () => {
    process.env.MAJORDOMUS_NOW = "2026-03-04T05:06:07Z";
    expect(isoStamp(now())).toBe("2026-03-04T05:06:07.000Z");
    expect(compactStamp(now())).toBe("20260304T050607Z");
  });

  test("a MAJORDOMUS_NOW that is not ISO is a usage failure naming the variable", () => {
    process.env.MAJORDOMUS_NOW = "yesterday";
    expect(() => now()).toThrow(Failure);
    expect(() => now()).toThrow(/MAJORDOMUS_NOW/);
  });

  test.each([
    ["30m", 30 * 60_000],
    ["2h", 2 * 3_600_000],
    ["3d", 3 * 86_400_000],
    ["45s", 45_000],
    ["1w", 604_800_000],
    ["", undefined],
    ["3x", undefined],
    ["-3d", undefined],
    ["1.5h", undefined],
  ])("duration %p", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each([
    ["2026-11-30T14:00:00Z", true],
    ["2026-11-30T14:00:00.123Z", true],
    ["2026-11-30T14:00:00+02:00", true],
    ["2026-11-30", true],
    ["2026-13-01T00:00:00Z", false],
    ["2026-11-31T00:00:00Z", false],
    ["2026-02-29T00:00:00Z", false],
    ["2028-02-29T00:00:00Z", true],
    ["2100-02-29", false],
    ["2000-02-29", true],
    ["2026-12-31T23:59:59.999Z", true],
    ["2026-11-32T00:00:00Z", false],
    ["2026-11-30T24:00:00Z", false],
    ["2026-11-30T23:60:00Z", false],
    ["2026-11-30T23:59:60Z", false],
    ["2026-11-30T14:00:00+24:00", false],
    ["2026-11-30T14:00:00+0130", true],
    // majordomus's own stamp shape (read without the expression): every field still checked.
    ["2026-11-30T14:07:41.123Z", true],
    ["2028-02-29T00:00:00.000Z", true],
    ["2026-02-29T00:00:00.000Z", false],
    ["2026-11-31T00:00:00.000Z", false],
    ["2026-00-10T00:00:00.000Z", false],
    ["2026-11-00T00:00:00.000Z", false],
    ["2026-11-30T24:00:00.000Z", false],
    ["2026-11-30T23:60:00.000Z", false],
    ["2026-11-30T23:59:60.000Z", false],
    ["2026-11-30T23:59:5x.000Z", false],
    ["2026-11-30 23:59:59.000Z", false],
    ["Nov 30 2026", false],
    ["1700000000", false],
    ["", false],
  ])("ISO time %p", (text, ok) => {
    expect(parseIsoTime(text) !== undefined).toBe(ok);
    // The check over many lines agrees with the parse, without making a Date.
    expect(isIsoTime(text)).toBe(ok);
  });

  test("--since takes a duration back from now or an ISO time", () => {
    const at = new Date("2026-11-30T12:00:00Z");
    expect(parseSince("2h", at)?.toISOString()).toBe("2026-11-30T10:00:00.000Z");
    expect(parseSince("2026-11-29T00:00:00Z", at)?.toISOString()).toBe("2026-11-29T00:00:00.000Z");
    expect(parseSince("soon", at)).toBeUndefined();
  });
});
