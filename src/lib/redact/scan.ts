/**
 * The rules a regular expression cannot hold linearly, as scans: a secret's name and value (the name walked back from
 * each `=` or `:`, at most NAME_MAX characters); key armor is redact/armor.ts's. Each steps its deadline.
 */
import { ARMOR_PATTERNS } from "./armor.ts";
import type { Deadline } from "./deadline.ts";

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

/** The separator after each name that may hold a secret word, each name walked once. */
function* separatorsAfterSecretWords(text: string, deadline: Deadline): Generator<number> {
  const lower = text.toLowerCase();
  const found: number[] = [];
  for (const h of NAME_HINTS) for (let at = lower.indexOf(h); at !== -1; at = lower.indexOf(h, at + 1)) found.push(at);
  found.sort((a, b) => a - b);
  let walked = 0;
  for (const at of found) {
    if (at < walked) continue;
    let k = at;
    while (k < text.length && isName(text.charCodeAt(k))) k++;
    deadline.tick();
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

/** How far a search for a closing quote went without finding one (a pumped `pass="pass="…` is read once). */
type Open = { quote: string; upTo: number; hitLine: boolean };

/** Where the value starting at `k` ends, or undefined when it is no value to redact. */
function valueEnd(text: string, k: number, query: boolean, open: Open, deadline: Deadline): number | undefined {
  const q = text[k];
  if (query) {
    let to = k;
    while (to < text.length && !isBlank(text.charCodeAt(to)) && !`&"'#`.includes(text[to]!)) to++;
    return to === k ? undefined : to;
  }
  if (q === '"' || q === "'") {
    if (open.quote === q && k < open.upTo && open.hitLine) return undefined;
    const limit = Math.min(text.length, k + 1 + QUOTED_MAX);
    let close = open.quote === q && k < open.upTo ? open.upTo : k + 1;
    while (close < limit && text[close] !== q && text[close] !== "\n") {
      close++;
      deadline.tick();
    }
    if (close >= limit || text[close] !== q)
      return void Object.assign(open, { quote: q, upTo: close, hitLine: close < limit });
    return close - k - 1 < 3 ? undefined : close + 1;
  }
  let to = k;
  while (to < text.length && !isBlank(text.charCodeAt(to)) && !`"',`.includes(text[to]!)) {
    to++;
    deadline.tick();
  }
  // An authorization scheme is not the secret; the credential after it is the authorization rule's.
  return to - k < 3 || SCHEME.test(text.slice(k, to)) ? undefined : to;
}

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a quoted value whole, a bare one to the end of its word; in a URL
 * query, to the next parameter.
 */
export function namedValues(text: string, mark: (kept: string, name?: string) => string, deadline: Deadline): string {
  const out: string[] = [];
  let done = 0;
  const open: Open = { quote: "", upTo: -1, hitLine: false };
  for (const i of separatorsAfterSecretWords(text, deadline)) {
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
    // A value already redacted (this gate's own output, read again) is passed over before it is read at all.
    if (MARKED.test(text.slice(k, Math.min(text.length, k + 40)))) continue;
    const to = valueEnd(text, k, query, open, deadline);
    if (to === undefined) continue;
    out.push(text.slice(done, k), mark("", query ? "query-secret" : undefined));
    done = to;
  }
  return out.length === 0 ? text : out.join("") + text.slice(done);
}

const MYSQL = /\bmysql(?:dump|admin|sh)?\b/i;
/** `-p` glued to its value; a bare `-p` asks for the password and stays. */
const GLUED = /(\s-p)([^\s'"]{1,200}|'[^'\n]{0,200}'|"[^"\n]{0,200}")/g;

export function mysqlPasswords(text: string, mark: (kept: string) => string, deadline: Deadline): string {
  let changed = false;
  const lines = text.split("\n").map((line) => {
    deadline.tick();
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
export function jwts(text: string, mark: (kept: string) => string, deadline: Deadline): string {
  const out: string[] = [];
  let done = 0;
  let skip = 0;
  for (let at = text.indexOf("eyJ"); at !== -1; at = text.indexOf("eyJ", at + 1)) {
    deadline.tick();
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

export const SCAN_PATTERNS: readonly RegExp[] = [SECRET_WORD, MYSQL, GLUED, ...ARMOR_PATTERNS];
