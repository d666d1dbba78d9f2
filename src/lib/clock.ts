/**
 * The one clock. Tests inject a fixed time with MAJORDOMUS_NOW (an ISO 8601 time); everything
 * that stamps or judges time reads it through here.
 *
 * One instant per command: the CLI pins the clock when a command starts, so every age, freshness
 * label and "in the future" judgement of that command (`now()`) uses the same instant. Stamps
 * (`stamp()`, `wall()`) say when something was written, so they read the clock as it is: a record
 * stamped after the command's instant but not after the wall clock was written while the command
 * ran, and is 0 minutes old (records/labels.ts), never in the future.
 */
import { Failure } from "./failure.ts";
import { env } from "./env.ts";

let pinned: Date | undefined;

/** Fix the command's instant (read once); later calls to now() return it. */
export function pinClock(): Date {
  pinned = wall();
  return pinned;
}

/** Let now() follow the clock again (a long-lived caller, a test). */
export function unpinClock(): void {
  pinned = undefined;
}

/** The command's instant: pinned when the command started, else the clock now. */
export function now(): Date {
  return pinned ?? wall();
}

/** The clock as it reads at this moment, pinned or not. */
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

// Each field within its range (JavaScriptCore also takes 24:00 and rolls a 30th of February over
// into March: both are refused here, the day against its month's length).
const ISO =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The digit at `i` (0-9), or -1 when that character is not a digit. */
function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** The positions of the digits in the stamps majordomus writes: `2026-11-30T14:07:41.123Z`. */
const STAMP_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
/** Where its separators stand, and what they are. */
const STAMP_MARKS: ReadonlyArray<readonly [number, number]> = [
  [4, 45],
  [7, 45],
  [10, 84],
  [13, 58],
  [16, 58],
  [19, 46],
  [23, 90],
];

/** The two-digit number at `i` of a text whose digits were checked. */
function two(text: string, i: number): number {
  return (text.charCodeAt(i) - 48) * 10 + text.charCodeAt(i + 1) - 48;
}

/**
 * Whether `text` is a stamp in majordomus's own shape, its fields read without a regular
 * expression and without allocating (doctor's first run checks 200,000 of them): true or false
 * for a text of that shape, undefined for any other text (the expression decides).
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

/** Whether the day exists in that month of that year. */
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

/** Strict ISO 8601 parse: returns undefined for anything else (Date.parse alone accepts too much). */
export function parseIsoTime(text: string): Date | undefined {
  if (!isoShaped(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Whether `text` is a strict ISO 8601 time: parseIsoTime without making the Date, for checks over
 * many lines (doctor's first run checks 200,000 ledger stamps; Date.parse took 46 ms of it).
 */
export function isIsoTime(text: string): boolean {
  return isoShaped(text);
}

/** The wall clock as a stamp: when something is written, to the millisecond. */
export function stamp(): string {
  return isoStamp(wall());
}

/** `2026-11-30T14:07:41.123Z`: millisecond resolution, always UTC. */
export function isoStamp(date: Date): string {
  return date.toISOString();
}

/** `20261130T140741Z`: for file names. */
export function compactStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/** `20261130T140741123Z`: for file names that sort by the millisecond. */
export function compactStampMs(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, "");
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `2h`, `3d` → milliseconds; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** A `--since` value: a duration back from now, or an ISO time. */
export function parseSince(text: string, at: Date): Date | undefined {
  const span = parseDuration(text);
  if (span !== undefined) return new Date(at.getTime() - span);
  return parseIsoTime(text);
}
