/**
 * Private-key armor (PEM, PGP, RFC 4716, PuTTY, DER bodies), removed whole with or without its END line, and nothing
 * else: its header, the armor headers its format defines, one blank line, the body, the END. Linear on any input.
 */
import type { Deadline } from "./deadline.ts";

type Mark = (kept: string) => string;

const KEY_HEAD = /-{4,5} ?BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)? ?-{4,5}/g;
const KEY_END = /-{4,5} ?END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)? ?-{4,5}/y;
const PUTTY_HEAD = /PuTTY-User-Key-File-[0-9]{1,3}: ?[\w@.-]{0,60}/g;
const PUTTY_END = /Private-MAC: ?[0-9a-fA-F]{0,128}/y;
/** The first bytes of a DER private key, base64: PKCS#1 RSA and PKCS#8 (SEQUENCE, INTEGER 0), SEC1 EC, OpenSSH's. */
const DER_HEAD =
  /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}IBA(?:AK|DAN)|MHcCAQEE|MHQCAQEE|MIGkAgEBBD|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{8}/g;
const ARMOR_HEADER = /^[ \t]*([A-Za-z][A-Za-z0-9-]{0,40}): ?/;

const PEM_HEADERS = new Set(["proc-type", "dek-info", "version", "comment", "hash", "charset", "messageid", "subject"]);
const PUTTY_HEADERS = new Set([
  "encryption",
  "comment",
  "public-lines",
  "private-lines",
  "key-derivation",
  "argon2-memory",
  "argon2-passes",
  "argon2-parallelism",
  "argon2-salt",
]);

/** Armor header lines a block can have, continuations included (formats use a handful). */
const HEADER_LINES_MAX = 32;

const isB64 = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61;

function line(text: string, at: number): { end: number; next: number } {
  const nl = text.indexOf("\n", at);
  const stop = nl === -1 ? text.length : nl;
  return { end: stop > at && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop, next: nl === -1 ? -1 : nl + 1 };
}

/** A line that is base64 alone (a body line), at least `min` characters of it; a PGP checksum `=XXXX` is one. */
function base64Line(text: string, from: number, to: number, min = 8): boolean {
  let a = from;
  let b = to;
  while (a < b && (text[a] === " " || text[a] === "\t")) a++;
  while (b > a && (text[b - 1] === " " || text[b - 1] === "\t")) b--;
  if (b - a < min) return false;
  for (let i = a; i < b; i++) if (!isB64(text.charCodeAt(i))) return false;
  return true;
}

type Format = { headers: ReadonlySet<string>; end: RegExp; headersAmongBody?: boolean };

/** Where the block's material ends: armor headers, one blank line, body lines, the END when it is next. */
function material(text: string, from: number, format: Format, deadline: Deadline): { to: number; body: boolean } {
  let at = from;
  let to = from;
  let body = false;
  let headersOpen = true;
  let blankSeen = false;
  // PuTTY's `Public-Lines: N` and `Private-Lines: N` say that key lines follow, however short.
  let announced = false;
  let headerLines = 0;
  while (at !== -1 && at < text.length) {
    deadline.tick();
    const { end, next } = line(text, at);
    format.end.lastIndex = at + (/^[ \t]*/.exec(text.slice(at, Math.min(end, at + 20)))?.[0].length ?? 0);
    if (format.end.test(text)) return { to: end, body: true };
    const header = ARMOR_HEADER.exec(text.slice(at, Math.min(end, at + 48)));
    const room = headerLines < HEADER_LINES_MAX;
    if (room && (headersOpen || format.headersAmongBody) && header && format.headers.has(header[1]!.toLowerCase())) {
      let last = end;
      let cont = next;
      headerLines++;
      // RFC 4716: a header value ending in a backslash goes on to the next line.
      while (text.charCodeAt(last - 1) === 92 && cont !== -1 && headerLines++ < HEADER_LINES_MAX)
        ({ end: last, next: cont } = line(text, cont));
      to = last;
      at = cont;
      announced = header[1]!.toLowerCase().endsWith("-lines");
      continue;
    }
    if (end === at && !blankSeen && !body) {
      blankSeen = true;
      headersOpen = false;
      at = next;
      continue;
    }
    if (!base64Line(text, at, end, announced ? 1 : body ? 4 : 8)) break;
    headersOpen = false;
    body = true;
    to = end;
    at = next;
  }
  // Armor headers with no key after them are the person's text (a `Comment:` line after a header they quoted).
  return body ? { to, body } : { to: from, body };
}

/** A header's own line: base64 words of 16 characters or more and the END after them (a key on one line). */
function sameLine(text: string, from: number, end: RegExp): number {
  const { end: stop } = line(text, from);
  let at = from;
  for (;;) {
    let k = at;
    while (k < stop && k - at <= 20 && (text[k] === " " || text[k] === "\t")) k++;
    end.lastIndex = k;
    if (end.test(text)) return end.lastIndex;
    let w = k;
    while (w < stop && isB64(text.charCodeAt(w))) w++;
    if (w - k < 16) return at;
    at = w;
  }
}

/** Within this many characters of its header, an END closes the block whatever is between (a key on one line). */
const NEAR_END = 16_384;

function spans(text: string, pattern: RegExp, deadline: Deadline): Array<[number, number]> {
  const global = new RegExp(pattern.source, "g");
  const found: Array<[number, number]> = [];
  for (let m = global.exec(text); m; m = global.exec(text)) {
    deadline.tick();
    found.push([m.index, m.index + m[0].length]);
  }
  return found;
}

/** Each header to its END when one is near, else with its material; heads and ENDs found once, paired in order. */
function armored(text: string, head: RegExp, format: Format, mark: Mark, deadline: Deadline): string {
  const heads = spans(text, head, deadline);
  if (heads.length === 0) return text;
  const ends = spans(text, format.end, deadline);
  const out: string[] = [];
  let done = 0;
  let e = 0;
  for (let h = 0; h < heads.length; h++) {
    deadline.tick();
    const [from, headEnd] = heads[h]!;
    if (from < done) continue;
    while (e < ends.length && ends[e]![0] < headEnd) e++;
    const close = ends[e];
    const following = heads[h + 1]?.[0] ?? text.length;
    if (close && close[0] < following && close[1] - from <= NEAR_END) {
      out.push(text.slice(done, from), mark(""));
      done = close[1];
      continue;
    }
    const inline = sameLine(text, headEnd, format.end);
    out.push(text.slice(done, from), mark(""));
    done = inline;
    const { end, next } = line(text, inline);
    if (next === -1) continue;
    const block = material(text, next, format, deadline);
    if (block.to === next) continue;
    // What followed the header on its line is the person's; the block after it goes.
    out.push(text.slice(done, end), text.slice(end, next), mark(""));
    done = block.to;
  }
  return out.join("") + text.slice(done);
}

const PEM: Format = { headers: PEM_HEADERS, end: KEY_END };
const PUTTY: Format = { headers: PUTTY_HEADERS, end: PUTTY_END, headersAmongBody: true };
const DER: Format = { headers: new Set(), end: KEY_END };

export const keyBlocks = (text: string, mark: Mark, deadline: Deadline) =>
  armored(armored(text, KEY_HEAD, PEM, mark, deadline), DER_HEAD, DER, mark, deadline);

export const puttyKeys = (text: string, mark: Mark, deadline: Deadline) =>
  armored(text, PUTTY_HEAD, PUTTY, mark, deadline);

export const ARMOR_PATTERNS: readonly RegExp[] = [KEY_HEAD, KEY_END, PUTTY_HEAD, PUTTY_END, DER_HEAD, ARMOR_HEADER];
