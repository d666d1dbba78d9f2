/**
 * The rules a regular expression cannot hold linearly, as scans: a secret's name and value (the name walked back from
 * each `=` or `:`, at most NAME_MAX characters) and key blocks (each header paired with the first END after it).
 */

const SECRET_WORD =
  /passw(?:or)?d|pwd|pass|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|signing[_-]?key|client[_-]?key|auth|credentials?|sig|signature/i;

const NAME_MAX = 200;
const GAP_MAX = 20;
const QUOTED_MAX = 4_096;

const isName = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
const isSpace = (c: number) => c === 32 || c === 9;
const isBlank = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;

export const NAME_HINTS = ["pass", "pwd", "secret", "token", "key", "auth", "credential", "sig"] as const;

/**
 * The separator after each name that may hold a secret word: hints found by native substring search, each name walked
 * once however many hints it holds.
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

const SCHEME = /^(?:basic|bearer|token|digest|negotiate)$/i;

const MARKED = /^(?:(?:basic|bearer|token|digest|negotiate)\s+)?\[redacted:/i;

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a quoted value whole, a bare one to the end of its word; in a URL
 * query, to the next parameter.
 */
export function namedValues(text: string, mark: (kept: string, name?: string) => string): string {
  const out: string[] = [];
  let done = 0;
  for (const i of separatorsAfterSecretWords(text)) {
    if (i < done) continue;
    const sep = text.charCodeAt(i);
    let j = i;
    while (j > 0 && i - j < GAP_MAX && isSpace(text.charCodeAt(j - 1))) j--;
    const closing = j > 0 && (text[j - 1] === '"' || text[j - 1] === "'") ? text[j - 1] : undefined;
    if (closing) j--;
    const end = j;
    while (j > 0 && end - j < NAME_MAX && isName(text.charCodeAt(j - 1))) j--;
    if (j === end || j < done) continue;
    const before = j > 0 ? text[j - 1] : "";
    const query = before === "?" || before === "&";
    if (query ? sep !== 61 : closing ? before !== closing : false) continue;
    if (!SECRET_WORD.test(text.slice(j, end))) continue;
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
      const limit = Math.min(text.length, k + 1 + QUOTED_MAX);
      let close = k + 1;
      while (close < limit && text[close] !== q && text[close] !== "\n") close++;
      if (close >= limit || text[close] !== q || close - k - 1 < 3) continue;
      to = close + 1;
    } else {
      while (k < text.length && !isBlank(text.charCodeAt(k)) && !`"',`.includes(text[k]!)) k++;
      to = k;
      // An authorization scheme is not the secret; the credential after it is the authorization rule's.
      if (to - valueAt < 3 || SCHEME.test(text.slice(valueAt, to))) continue;
    }
    if (MARKED.test(text.slice(valueAt, Math.min(text.length, valueAt + 40)))) continue;
    out.push(text.slice(done, valueAt), mark("", query ? "query-secret" : undefined));
    done = to;
  }
  return out.length === 0 ? text : out.join("") + text.slice(done);
}

function spans(text: string, pattern: RegExp): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    found.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return found;
}

const BASE64_LINE = /^[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*\r?$/;
const HEADER_LINE = /^[ \t]*[A-Za-z][A-Za-z-]*: [^\n]*$/;
const MATERIAL_LINES = 400;

const INLINE_WORD = /[ \t]{1,20}[A-Za-z0-9+/=]{16,4096}/y;

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

const BLOCK_MAX = 16_384;

/**
 * Blocks from each `open` to the first `close` after it within BLOCK_MAX, else the header and the key material after
 * it.
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

export const keyBlocks = (text: string, mark: (kept: string) => string) => blocks(text, KEY_HEAD, KEY_END, mark);

const PUTTY_HEAD = /PuTTY-User-Key-File-[0-9]{1,3}: ?[\w@.-]{0,60}/g;
const PUTTY_END = /Private-MAC:[^\n]{0,200}/g;

export const puttyKeys = (text: string, mark: (kept: string) => string) => blocks(text, PUTTY_HEAD, PUTTY_END, mark);

const MYSQL = /\bmysql(?:dump|admin|sh)?\b/i;
/** `-p` glued to its value; a bare `-p` asks for the password and stays. */
const GLUED = /(\s-p)([^\s'"]{1,200}|'[^'\n]{0,200}'|"[^"\n]{0,200}")/g;

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

const JWT_AT = /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/y;
const URL_SAFE_RUN = /[A-Za-z0-9_-]*/y;
const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * JWTs after any non-word character (a dash too). A regular expression starting after a dash retries at every `eyJ`
 * of a long run; here a failed try skips the run, so the scan is linear.
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
