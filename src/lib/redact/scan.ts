/**
 * The redaction rules a regular expression cannot hold linearly, written as scans: a secret's name
 * and its value (the name is looked for backwards from each `=` or `:`, at most NAME_MAX characters,
 * so a 40-letter identifier costs a bounded look, never a backtracking search), and key blocks (each
 * header paired with the first END after it, found in one pass). Each is linear in its text.
 */

/** Names that say a value is a secret, as parts of an identifier (`DB_PASSWORD`, `clientSecret`, `x-api-key`). */
const SECRET_WORD =
  /passw(?:or)?d|pwd|pass|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|signing[_-]?key|client[_-]?key|auth|credentials?|sig|signature/i;

/** The longest name looked at before a `=` or `:` (a longer run is judged by its last NAME_MAX characters). */
const NAME_MAX = 200;
/** Spaces looked past between a name, its separator and its value. */
const GAP_MAX = 20;
/** The longest quoted value taken whole, spaces and all. */
const QUOTED_MAX = 4_096;

const isName = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
const isSpace = (c: number) => c === 32 || c === 9;
const isBlank = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;

/** What every secret word contains, lower-cased (`api_key` holds `key`, `passwd` holds `pass`): the rule's hints. */
export const NAME_HINTS = ["pass", "pwd", "secret", "token", "key", "auth", "credential", "sig"] as const;

/**
 * The `=` or `:` after each name that may hold a secret word, in order. The hints are found by
 * substring search (native, as fast with the JIT off as on), and each name is walked to its end
 * once, however many hints it holds, so the walk is linear in the text; the name itself is judged
 * at its separator.
 */
function* separatorsAfterSecretWords(text: string): Generator<number> {
  const lower = text.toLowerCase();
  const found: number[] = [];
  for (const h of NAME_HINTS) for (let at = lower.indexOf(h); at !== -1; at = lower.indexOf(h, at + 1)) found.push(at);
  found.sort((a, b) => a - b);
  let walked = 0;
  for (const at of found) {
    if (at < walked) continue;
    let k = at;
    while (k < text.length && isName(text.charCodeAt(k))) k++;
    walked = k + 1;
    if (text[k] === '"' || text[k] === "'") k++;
    const gap = k;
    while (k < text.length && k - gap < GAP_MAX && isSpace(text.charCodeAt(k))) k++;
    const c = text.charCodeAt(k);
    if (c === 61 || c === 58) yield k;
  }
}

/** An authorization scheme on its own (`Authorization: Bearer …`): a word the name's value starts with, never a secret. */
const SCHEME = /^(?:basic|bearer|token|digest|negotiate)$/i;

/** A value already replaced (by a shape rule before this one), or a scheme followed by one. */
const MARKED = /^(?:(?:basic|bearer|token|digest|negotiate)\s+)?\[redacted:/i;

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a quoted value whole, spaces and all; a bare one
 * to the end of the word, `&` and `;` included. In a URL's query (`?sig=…`, `&token=…`) the value
 * ends at the next parameter.
 */
export function namedValues(text: string, mark: (kept: string, name?: string) => string): string {
  const out: string[] = [];
  let done = 0;
  for (const i of separatorsAfterSecretWords(text)) {
    if (i < done) continue;
    const sep = text.charCodeAt(i);
    // Back from the separator: spaces, an optional closing quote, then the name.
    let j = i;
    while (j > 0 && i - j < GAP_MAX && isSpace(text.charCodeAt(j - 1))) j--;
    const closing = j > 0 && (text[j - 1] === '"' || text[j - 1] === "'") ? text[j - 1] : undefined;
    if (closing) j--;
    const end = j;
    while (j > 0 && end - j < NAME_MAX && isName(text.charCodeAt(j - 1))) j--;
    if (j === end || j < done) continue;
    const before = j > 0 ? text[j - 1] : "";
    const query = before === "?" || before === "&";
    // A name must be a whole word: in a URL a name follows `?` or `&`; elsewhere not a name character, a `?` or a `&`.
    if (query ? sep !== 61 : closing ? before !== closing : false) continue;
    if (!SECRET_WORD.test(text.slice(j, end))) continue;
    // Forward from the separator: spaces, then the value.
    let k = i + 1;
    while (k < text.length && k - i <= GAP_MAX && isSpace(text.charCodeAt(k))) k++;
    if (query && k !== i + 1) continue;
    const valueAt = k;
    const q = text[k];
    let to: number;
    if (query) {
      while (k < text.length && !isBlank(text.charCodeAt(k)) && !`&"'#`.includes(text[k]!)) k++;
      to = k;
      if (to === valueAt) continue;
    } else if (q === '"' || q === "'") {
      // The closing quote on the same line, within QUOTED_MAX: looked for that far and no further.
      const limit = Math.min(text.length, k + 1 + QUOTED_MAX);
      let close = k + 1;
      while (close < limit && text[close] !== q && text[close] !== "\n") close++;
      if (close >= limit || text[close] !== q || close - k - 1 < 3) continue;
      to = close + 1;
    } else {
      while (k < text.length && !isBlank(text.charCodeAt(k)) && !`"',`.includes(text[k]!)) k++;
      to = k;
      // An authorization scheme is not the secret: the credential after it is the authorization rule's.
      if (to - valueAt < 3 || SCHEME.test(text.slice(valueAt, to))) continue;
    }
    if (MARKED.test(text.slice(valueAt, Math.min(text.length, valueAt + 40)))) continue;
    out.push(text.slice(done, valueAt), mark("", query ? "query-secret" : undefined));
    done = to;
  }
  return out.length === 0 ? text : out.join("") + text.slice(done);
}

/** Every match of a global pattern, as [start, end], in one pass. */
function spans(text: string, pattern: RegExp): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    found.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return found;
}

/** A line of key material: base64, or a `Name: value` header (each line looked at is at most 512 characters). */
const BASE64_LINE = /^[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*\r?$/;
const HEADER_LINE = /^[ \t]*[A-Za-z][A-Za-z-]*: [^\n]*$/;
/** The most lines of key material taken after a header that has no end line. */
const MATERIAL_LINES = 400;

/** Base64 words on the header's own line (a key pasted onto one line): each bounded, none overlapping the next. */
const INLINE_WORD = /[ \t]{1,20}[A-Za-z0-9+/=]{16,4096}/y;

/** Where the key material right after a header ends: its base64 words on the header's line, then every line that is base64 or a header. */
function materialEnd(text: string, from: number): number {
  let end = from;
  for (INLINE_WORD.lastIndex = end; INLINE_WORD.test(text); INLINE_WORD.lastIndex = end) end = INLINE_WORD.lastIndex;
  for (let n = 0; n < MATERIAL_LINES && text[end] === "\n"; n++) {
    const next = text.indexOf("\n", end + 1);
    const stop = next === -1 || next - end > 512 ? Math.min(text.length, end + 512) : next;
    const line = text.slice(end + 1, stop);
    if (!BASE64_LINE.test(line) && !HEADER_LINE.test(line)) break;
    end = stop;
  }
  return end;
}

/** A block's longest span from header to end line; past it, a header without an end takes its own lines only. */
const BLOCK_MAX = 16_384;

/**
 * Blocks that open at each `open` match: to the first `close` match after it (before the next
 * block opens, within BLOCK_MAX), or else the header and the key material right after it.
 */
function blocks(text: string, open: RegExp, close: RegExp, mark: (kept: string) => string): string {
  const heads = spans(text, open);
  if (heads.length === 0) return text;
  const ends = spans(text, close);
  const out: string[] = [];
  let done = 0;
  let e = 0;
  for (let h = 0; h < heads.length; h++) {
    const [from, headEnd] = heads[h]!;
    if (from < done) continue;
    const next = heads[h + 1]?.[0] ?? text.length;
    while (e < ends.length && ends[e]![0] < headEnd) e++;
    const end = ends[e];
    let to: number;
    if (end && end[0] < next && end[1] - from <= BLOCK_MAX) to = end[1];
    else to = materialEnd(text, headEnd);
    out.push(text.slice(done, from), mark(""));
    done = to;
  }
  return out.join("") + text.slice(done);
}

const KEY_HEAD = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

/** PEM, OpenSSH and PGP private key blocks. */
export const keyBlocks = (text: string, mark: (kept: string) => string) => blocks(text, KEY_HEAD, KEY_END, mark);

const PUTTY_HEAD = /PuTTY-User-Key-File-[0-9]{1,3}: ?[\w@.-]{0,60}/g;
const PUTTY_END = /Private-MAC:[^\n]{0,200}/g;

/** PuTTY's key files: from the header to its MAC line. */
export const puttyKeys = (text: string, mark: (kept: string) => string) => blocks(text, PUTTY_HEAD, PUTTY_END, mark);

const MYSQL = /\bmysql(?:dump|admin|sh)?\b/i;
/** `-p` glued to its value (`-pS3cret`, `-p'S3cret'`): a bare `-p` asks for the password, and stays. */
const GLUED = /(\s-p)([^\s'"]{1,200}|'[^'\n]{0,200}'|"[^"\n]{0,200}")/g;

/** On each line that runs a mysql client, the password glued to -p after it. One pass over each line. */
export function mysqlPasswords(text: string, mark: (kept: string) => string): string {
  let changed = false;
  const lines = text.split("\n").map((line) => {
    const at = line.search(MYSQL);
    if (at === -1) return line;
    const after = line.slice(at).replace(GLUED, (_m, kept: string) => mark(kept));
    if (after === line.slice(at)) return line;
    changed = true;
    return line.slice(0, at) + after;
  });
  return changed ? lines.join("\n") : text;
}

/** A JWT at a place: three base64url parts, the first opening as a JSON object does (`eyJ`). */
const JWT_AT = /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/y;
const URL_SAFE_RUN = /[A-Za-z0-9_-]*/y;
const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * JSON web tokens, after any character that cannot continue a word (a dash too: `k0-eyJ….ts`). A
 * regular expression that may start after a dash would try again at every `eyJ` inside one long
 * run; here a try that fails skips the run it read, so the scan is linear.
 */
export function jwts(text: string, mark: (kept: string) => string): string {
  const out: string[] = [];
  let done = 0;
  let skip = 0;
  for (let at = text.indexOf("eyJ"); at !== -1; at = text.indexOf("eyJ", at + 1)) {
    if (at < skip || (at > 0 && isWord(text.charCodeAt(at - 1)))) continue;
    JWT_AT.lastIndex = at;
    const m = JWT_AT.exec(text);
    if (m) {
      out.push(text.slice(done, at), mark(""));
      done = skip = at + m[0].length;
      continue;
    }
    URL_SAFE_RUN.lastIndex = at;
    URL_SAFE_RUN.exec(text);
    skip = URL_SAFE_RUN.lastIndex;
  }
  return out.length === 0 ? text : out.join("") + text.slice(done);
}

/** The scans' own patterns, for the linearity check every pattern of redaction passes. */
export const SCAN_PATTERNS: readonly RegExp[] = [
  SECRET_WORD,
  INLINE_WORD,
  BASE64_LINE,
  HEADER_LINE,
  KEY_HEAD,
  KEY_END,
  PUTTY_HEAD,
  PUTTY_END,
  MYSQL,
  GLUED,
];
