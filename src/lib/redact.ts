/**
 * Secrets are redacted from every text that came from a payload before anything is stored or
 * printed. Two layers:
 *
 * 1. Shapes, one row each (REDACTIONS): secrets with a published prefix or format (GitHub, GitLab,
 *    npm, PyPI, Hugging Face, Docker, SendGrid, Slack, Stripe, AWS, Google, OpenAI, Anthropic,
 *    Twilio, Vault, …), private key blocks (PEM, PGP, PuTTY), credentials in URLs, authorization
 *    headers and command-line flags, and assignments whose name says it holds a secret
 *    (`DB_PASSWORD=`, `"client_secret": "…"`, `?sig=`), quoted values whole, spaces and all.
 * 2. secretlint's maintained rules over what the shapes left, for formats the table does not know
 *    yet: its recommended preset and the packages beyond it (Anthropic, OpenAI, database
 *    connection strings, 1Password, Linear). It costs a few
 *    milliseconds to load, so it runs only when the text holds something token-like at all.
 *
 * Each match becomes `[redacted:<name>]`; a row with `keep` keeps the name and separator
 * (`password=`) and replaces only the value.
 */
/**
 * `hints`: lower-case substrings one of which any match must contain. A rule runs only on a text
 * that holds one: compiling the whole table costs about a millisecond on every prompt, and a
 * substring search costs next to nothing. `when`: a shape without a prefix of its own (a bare AWS
 * secret key, a Twilio auth token) is taken only beside what names it (its key id, its account SID).
 */
import { log } from "./log.ts";

type Rule = { name: string; hints: readonly string[]; pattern: RegExp; keep?: number; when?: RegExp; anchored?: true };

/** Names that say a value is a secret, as parts of an identifier (`DB_PASSWORD`, `clientSecret`, `x-api-key`). */
const SECRET_NAME =
  "(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]*(?:passw(?:or)?d|pwd|pass|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|signing[_-]?key|client[_-]?key|auth|credentials?|sig|signature)(?:[_.-]?[A-Za-z0-9]+)*";

/** What every SECRET_NAME contains, lower-cased (`api_key` holds `key`, `passwd` holds `pass`). */
const NAME_HINTS = ["pass", "pwd", "secret", "token", "key", "auth", "credential", "sig"];

export const REDACTIONS: readonly Rule[] = [
  // A key block whole, to its END line (bounded); without one, the header and the key material
  // on the lines right after it (base64, or `Name: value` headers), never the text beyond.
  {
    name: "private-key",
    hints: ["private key"],
    pattern:
      /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^]{0,16384}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[ \t]*\r?\n(?:[A-Za-z0-9+/=]{8,200}|[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,200})(?=[ \t]*\r?\n|$)){0,400})/g,
  },
  {
    name: "putty-key",
    hints: ["putty-user-key-file-"],
    pattern:
      /PuTTY-User-Key-File-\d{1,3}:(?:[^]{0,16384}?Private-MAC:[^\n]{0,200}| ?[\w@.-]{0,60}(?:\r?\n(?:[A-Za-z0-9+/=]{8,200}|[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,200})(?=\r?\n|$)){0,400})/g,
  },
  { name: "anthropic-key", hints: ["sk-ant-"], pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", hints: ["sk-"], pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g },
  { name: "github-token", hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  { name: "github-pat", hints: ["github_pat_"], pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  {
    name: "gitlab-token",
    hints: ["glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glimt-", "glagent-", "glffct-"],
    pattern: /\bgl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|ffct)-[A-Za-z0-9_-]{16,}/g,
  },
  { name: "npm-token", hints: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{30,}/g },
  { name: "pypi-token", hints: ["pypi-"], pattern: /\bpypi-[A-Za-z0-9_-]{40,}/g },
  { name: "huggingface-token", hints: ["hf_"], pattern: /\bhf_[A-Za-z0-9]{30,}/g },
  { name: "docker-token", hints: ["dckr_pat_"], pattern: /\bdckr_pat_[A-Za-z0-9_-]{20,}/g },
  { name: "sendgrid-key", hints: ["sg."], pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  {
    name: "slack-token",
    hints: ["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xapp-"],
    pattern: /\bx(?:ox[abposr]|app)-[A-Za-z0-9-]{10,}/g,
  },
  {
    name: "slack-webhook",
    hints: ["hooks.slack.com/"],
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
  },
  {
    name: "discord-webhook",
    hints: ["/api/webhooks/"],
    pattern: /https:\/\/(?:\w+\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+/g,
  },
  { name: "stripe-key", hints: ["_live_", "_test_"], pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  {
    name: "shopify-token",
    hints: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g,
  },
  {
    name: "aws-access-key-id",
    hints: ["akia", "asia", "agpa", "aida", "aroa", "anpa"],
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/g,
  },
  { name: "google-api-key", hints: ["aiza"], pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { name: "twilio-key", hints: ["sk", "ac"], pattern: /\b(?:SK|AC)[0-9a-f]{32}\b/g },
  { name: "mailchimp-key", hints: ["-us"], pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/g },
  { name: "telegram-bot-token", hints: [":aa"], pattern: /\b\d{6,10}:AA[A-Za-z0-9_-]{33}\b/g },
  { name: "1password-service-account-token", hints: ["ops_eyj"], pattern: /\bops_eyJ[A-Za-z0-9_-]{100,}={0,2}/g },
  { name: "mailgun-key", hints: ["key-"], pattern: /\bkey-[0-9a-z]{32}\b/g },
  { name: "google-oauth-token", hints: ["ya29."], pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  {
    name: "discord-bot-token",
    hints: ["."],
    pattern: /\b[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g,
  },
  // Beside an AWS key id, a 40-character token of mixed case is its secret (a git SHA is lower-case hex).
  {
    name: "aws-secret-key",
    hints: ["akia", "asia"],
    when: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/,
    pattern:
      /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  },
  // Beside a Twilio account SID (or the word), 32 lower-case hex characters are its auth token.
  {
    name: "twilio-auth-token",
    hints: ["twilio", "ac"],
    when: /\bAC[0-9a-f]{32}\b|twilio/i,
    pattern: /(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z-])/g,
  },
  // mysql, mysqldump, mysqladmin: the password glued to -p.
  {
    name: "mysql-password",
    hints: ["mysql"],
    pattern: /(\bmysql(?:dump|admin|sh)?\b[^\n]{0,200}?\s-p)(?!\s)([^\s'"]+|'[^'\n]*'|"[^"\n]*")/g,
    keep: 1,
  },
  { name: "vault-token", hints: ["hvs.", "hvb.", "hvr."], pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{20,}/g },
  { name: "digitalocean-token", hints: ["doo_v1_", "dop_v1_", "dor_v1_"], pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { name: "databricks-token", hints: ["dapi"], pattern: /\bdapi[0-9a-f]{32}(?:-\d)?\b/g },
  { name: "linear-key", hints: ["lin_api_", "lin_oauth_"], pattern: /\blin_(?:api|oauth)_[A-Za-z0-9]{32,}/g },
  { name: "age-secret-key", hints: ["age-secret-key-1"], pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g },
  { name: "jwt", hints: ["eyj"], pattern: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  // Credentials inside a URL: the user stays, the password goes.
  { name: "url-password", hints: ["://"], pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi, keep: 1 },
  {
    name: "authorization",
    hints: ["authorization"],
    pattern:
      /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:basic|bearer|token|digest|negotiate)?\s*)[A-Za-z0-9._~+/=:-]{8,}/gi,
    keep: 1,
  },
  { name: "bearer-token", hints: ["bearer"], pattern: /\b([Bb]earer\s+)[A-Za-z0-9._~+/=-]{16,}/g, keep: 1 },
  {
    name: "cli-secret",
    hints: ["-pass", "-token", "-secret", "-api", "-auth", "-access"],
    pattern:
      /((?:^|\s)--?(?:password|passwd|pass|token|secret|api-?key|auth-token|access-token)(?:=|\s+))(?:"[^"]*"|'[^']*'|\S+)/gi,
    keep: 1,
  },
  { name: "cli-user-password", hints: ["-u"], pattern: /((?:^|\s)(?:-u|--user)\s+[^\s:]+:)\S+/g, keep: 1 },
  // `?sig=…&` in a URL: the value ends at the next parameter.
  { name: "query-secret", hints: ["?", "&"], pattern: new RegExp(`([?&]${SECRET_NAME}=)[^&\\s"'#]+`, "gi"), keep: 1 },
  // NAME=value, NAME: value, "name": "value" (not inside a URL's query, above): a quoted value
  // whole, spaces and all; a bare one to the end of the word, `&` and `;` included.
  {
    name: "assignment",
    anchored: true,
    hints: NAME_HINTS,
    pattern: new RegExp(
      `((?:^|[^A-Za-z0-9_.?&-])["']?${SECRET_NAME}["']?\\s*[:=]\\s*)(?!\\[redacted:|(?:basic|bearer|token|digest|negotiate)\\s+\\[redacted:)(?:"[^"\\n]{3,}"|'[^'\\n]{3,}'|[^\\s"',]{3,})`,
      "gim",
    ),
    keep: 1,
  },
];

/** Texts at least this long run an anchored rule only where its names are (below it, one pass is cheaper). */
const ANCHOR_MIN = 4096;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

/**
 * An anchored rule (a secret's name, then its value) tried only where one of its hints occurs, from
 * the start of the identifier holding it: with the regular-expression JIT off, trying the pattern at
 * every position of a pasted 64 KB log cost most of the prompt hook's time. The leftmost match at
 * each such start is the one a pass over the whole text finds.
 */
function anchoredReplace(text: string, rule: Rule, replace: (groups: string[]) => string): string {
  const lower = text.toLowerCase();
  const starts = new Set<number>();
  for (const h of rule.hints) {
    for (let i = lower.indexOf(h); i !== -1; i = lower.indexOf(h, i + 1)) {
      let j = i;
      while (j > 0 && NAME_CHAR.test(text[j - 1]!)) j--;
      if (j > 0 && (text[j - 1] === '"' || text[j - 1] === "'")) j--;
      starts.add(j);
    }
  }
  const sticky = new RegExp(rule.pattern.source, rule.pattern.flags.replace("g", "") + "y");
  const parts: string[] = [];
  let done = 0;
  for (const j of [...starts].sort((a, b) => a - b)) {
    // The pattern opens with the character before the name (or a line's start): try both.
    for (const at of j > 0 ? [j - 1, j] : [j]) {
      if (at < done) continue;
      sticky.lastIndex = at;
      const m = sticky.exec(text);
      if (!m) continue;
      parts.push(text.slice(done, m.index), replace([...m] as string[]));
      done = m.index + m[0].length;
      break;
    }
  }
  return parts.length === 0 ? text : parts.join("") + text.slice(done);
}

/** Below this length a substring search per hint is cheaper than building and running one scan. */
const SCAN_MIN = 2048;
/** Hints shorter than this occur in almost any long text: each is looked for on its own, not in the scan. */
const SCANNED_HINT_MIN = 4;
let hintScan: { pattern: RegExp; all: string[]; short: string[] } | undefined;
/** The hints a hint contains (itself among them), worked out for the few the scan finds. */
const containedIn = new Map<string, string[]>();

/** The scan, built on first use: the longer hints as one lookahead, so overlapping hints are all seen. */
function scanner(): NonNullable<typeof hintScan> {
  if (hintScan) return hintScan;
  const all = [...new Set(REDACTIONS.flatMap((r) => r.hints))];
  const long = all.filter((h) => h.length >= SCANNED_HINT_MIN).sort((a, b) => b.length - a.length);
  const escaped = long.map((h) => h.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  hintScan = {
    pattern: new RegExp(`(?=(${escaped.join("|")}))`, "g"),
    all,
    short: all.filter((h) => h.length < SCANNED_HINT_MIN),
  };
  return hintScan;
}

function contained(hint: string, all: readonly string[]): string[] {
  let within = containedIn.get(hint);
  if (!within) containedIn.set(hint, (within = all.filter((other) => hint.includes(other))));
  return within;
}

/**
 * Which hints of the table a text holds. A short text: a substring search per hint. A long one (a
 * pasted log): one pass of a single alternation of the longer hints through the regular-expression
 * JIT, and a substring search for each short one, instead of one pass over the text per hint (90
 * passes took 2.3 ms of a 64 KB prompt). At each position the scan sees the longest hint starting
 * there; a shorter one starting there is part of it, so every hint a found one contains counts as
 * found with it.
 */
function hintsIn(lower: string): (hint: string) => boolean {
  if (lower.length < SCAN_MIN) return (hint) => lower.includes(hint);
  const { pattern, all, short } = scanner();
  const found = new Set<string>();
  for (const h of short) if (lower.includes(h)) found.add(h);
  pattern.lastIndex = 0;
  for (let m = pattern.exec(lower); m; m = pattern.exec(lower)) {
    for (const h of contained(m[1]!, all)) found.add(h);
    pattern.lastIndex = m.index + 1;
  }
  return (hint) => found.has(hint);
}

function byShapes(text: string, fired: Set<string>): string {
  let out = text;
  const holds = hintsIn(text.toLowerCase());
  for (const rule of REDACTIONS) {
    if (!rule.hints.some(holds)) continue;
    if (rule.when && !rule.when.test(text)) continue;
    const replace = (groups: string[]) => {
      fired.add(rule.name);
      const kept = rule.keep ? (groups[rule.keep] ?? "") : "";
      return `${kept}[redacted:${rule.name}]`;
    };
    out =
      rule.anchored && out.length >= ANCHOR_MIN
        ? anchoredReplace(out, rule, replace)
        : out.replace(rule.pattern, (...groups: string[]) => replace(groups));
  }
  return out;
}

/**
 * What the maintained rule set could find that the shapes above did not: a long run of token
 * characters (24 or more, no separator; a path, a URL or a log line breaks into short runs at its
 * slashes, dots and dashes) or a key block. Loading secretlint costs several milliseconds, most of a
 * prompt hook's time, so a prompt with only URLs, paths and prose never pays it: credentials in a
 * URL and assignments are the shapes' (url-password, assignment).
 */
const TOKENISH = /[A-Za-z0-9_+]{24,}|-----BEGIN/;

async function bySecretlint(text: string, fired: Set<string>): Promise<string> {
  if (!TOKENISH.test(text)) return text;
  const [{ lintSource }, ...packages] = await Promise.all([
    import("@secretlint/core"),
    import("@secretlint/secretlint-rule-preset-recommend"),
    import("@secretlint/secretlint-rule-anthropic"),
    import("@secretlint/secretlint-rule-openai"),
    import("@secretlint/secretlint-rule-database-connection-string"),
    import("@secretlint/secretlint-rule-1password"),
    import("@secretlint/secretlint-rule-linear"),
  ]);
  const ids = ["preset-recommend", "anthropic", "openai", "database-connection-string", "1password", "linear"];
  const rules = packages.map((p, i) => ({
    id: `@secretlint/secretlint-rule-${ids[i]}`,
    rule: (p as { creator: unknown }).creator,
  })) as never;
  const result = await lintSource({
    source: { filePath: "/prompt.txt", content: text, ext: ".txt", contentType: "text" },
    options: { config: { rules }, noPhysicFilePath: true, maskSecrets: false },
  });
  const ranges = result.messages
    .map((m) => ({
      from: m.range[0],
      to: m.range[1],
      name: String(m.ruleId).replace(/^@secretlint\/secretlint-rule-/, ""),
    }))
    .sort((a, b) => b.from - a.from);
  let out = text;
  let floor = Number.POSITIVE_INFINITY;
  for (const r of ranges) {
    // Overlapping findings: the rightmost wins, the others are cut to what is left of it.
    const to = Math.min(r.to, floor);
    if (to <= r.from) continue;
    out = `${out.slice(0, r.from)}[redacted:${r.name}]${out.slice(to)}`;
    fired.add(r.name);
    floor = r.from;
  }
  return out;
}

/** The shapes only: synchronous, for short texts such as error messages. */
export function redactShapes(text: string): string {
  return byShapes(text, new Set());
}

export async function redact(text: string): Promise<{ text: string; redacted: string[] }> {
  const fired = new Set<string>();
  let out = byShapes(text, fired);
  try {
    out = await bySecretlint(out, fired);
  } catch {
    // the rule set could not run: the shapes above still applied
  }
  return { text: out, redacted: [...fired].sort() };
}

const marks = (text: string) => text.split("[redacted:").length - 1;

/** A text redacted for keeping, with how many secrets were taken out and by which rules. */
export async function redactCounted(text: string): Promise<{ text: string; count: number; rules: string[] }> {
  const clean = await redact(text);
  return { text: clean.text, count: marks(clean.text) - marks(text), rules: clean.redacted };
}

/** What the writer is told of the secrets taken out of what it wrote: how many and by which rules, never a value. */
export function sayRedacted(what: string, done: { count: number; rules: string[] }): void {
  if (done.count > 0)
    log.warn(
      `${done.count} secret(s) redacted from the ${what} before it was stored (${done.rules.join(", ")}); the record says [redacted:<rule>] where each was`,
    );
}

/**
 * A text someone gives majordomus to keep (a record's body, a question, a decision, a task), redacted
 * before it is stored, with the rules prompts get. The writer is told on stderr how many secrets were
 * taken out and by which rules, never the value: an agent learns that it wrote one.
 */
export async function redactForWrite(text: string, what: string): Promise<string> {
  const done = await redactCounted(text);
  sayRedacted(what, done);
  return done.text;
}

/** A stored text shown again (a briefing, context, the read side): whatever an earlier version kept unredacted is redacted now, by the shapes. */
export function redactOnRead(text: string): string {
  return byShapes(text, new Set());
}
