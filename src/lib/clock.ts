/**
 * The one clock (MAJORDOMUS_NOW fixes it). The CLI pins one instant per command (`now()`) for every age and label;
 * stamps (`stamp()`, `wall()`) read the clock as it is, so a record written during the command is 0 minutes old,
 * never in the future.
 */
import { Failure } from "./failure.ts";
import { env } from "./env.ts";

let pinned: Date | undefined;

export function pinClock(): Date {
  pinned = wall();
  return pinned;
}

export function unpinClock(): void {
  pinned = undefined;
}

export function now(): Date {
  return pinned ?? wall();
}

export function wall(): Date {
  const injected = env("MAJORDOMUS_NOW");
  if (injected === undefined || injected === "") return new Date();
  const parsed = parseIsoTime(injected);
  if (!parsed) {
    throw new Failure(
      "usage",
      `MAJORDOMUS_NOW is not an ISO time: ${JSON.stringify(injected)}`,
      "set it like 2026-11-30T14:00:00Z or unset it",
    );
  }
  return parsed;
}

// Each field within range: JavaScriptCore takes 24:00 and rolls 30 February into March.
const ISO =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

const STAMP_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
const STAMP_MARKS: ReadonlyArray<readonly [number, number]> = [
  [4, 45],
  [7, 45],
  [10, 84],
  [13, 58],
  [16, 58],
  [19, 46],
  [23, 90],
];

function two(text: string, i: number): number {
  return (text.charCodeAt(i) - 48) * 10 + text.charCodeAt(i + 1) - 48;
}

/**
 * A stamp of our own shape read without a regular expression or allocation (doctor checks 200,000); undefined for any
 * other shape.
 */
function ownStamp(text: string): boolean | undefined {
  if (text.length !== 24) return undefined;
  for (let k = 0; k < STAMP_MARKS.length; k++) {
    const [at, code] = STAMP_MARKS[k]!;
    if (text.charCodeAt(at) !== code) return undefined;
  }
  for (let k = 0; k < STAMP_DIGITS.length; k++) if (digit(text, STAMP_DIGITS[k]!) < 0) return undefined;
  if (two(text, 11) > 23 || two(text, 14) > 59 || two(text, 17) > 59) return false;
  return calendarDay(two(text, 0) * 100 + two(text, 2), two(text, 5), two(text, 8));
}

function calendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= MONTH_DAYS[month - 1]! + (month === 2 && leap ? 1 : 0);
}

function isoShaped(text: string): boolean {
  const own = ownStamp(text);
  if (own !== undefined) return own;
  const m = ISO.exec(text);
  return m ? calendarDay(Number(m[1]), Number(m[2]), Number(m[3])) : false;
}

/** Strict ISO 8601 (Date.parse accepts too much). */
export function parseIsoTime(text: string): Date | undefined {
  if (!isoShaped(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** parseIsoTime without the Date (Date.parse was 46 ms of doctor's 200,000 stamps). */
export function isIsoTime(text: string): boolean {
  return isoShaped(text);
}

export function stamp(): string {
  return isoStamp(wall());
}

export function isoStamp(date: Date): string {
  return date.toISOString();
}

export function compactStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

export function compactStampMs(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, "");
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

export function parseSince(text: string, at: Date): Date | undefined {
  const span = parseDuration(text);
  if (span !== undefined) return new Date(at.getTime() - span);
  return parseIsoTime(text);
}
