/**
 * The shapes redaction takes, one row each. Every pattern is linear with the JIT off (no quantified group matches the
 * same text two ways, every self-repeating run is bounded); test/lib/redact-linear.test.ts runs recheck and a growth
 * measure over each. What a pattern cannot hold linearly is a scan (redact/scan.ts). `hints`: substrings any match
 * holds; `when`: taken only beside what names it; `keep`: the group kept before the mark.
 */
import { jwts, mysqlPasswords, NAME_HINTS, namedValues } from "./scan.ts";
import { keyBlocks, puttyKeys } from "./armor.ts";
import type { Deadline } from "./deadline.ts";

export type Rule = {
  name: string;
  hints: readonly string[];
  pattern?: RegExp;
  keep?: number;
  when?: RegExp;
  scan?: (text: string, mark: (kept: string, name?: string) => string, deadline: Deadline) => string;
};

const END = "(?![A-Za-z0-9_-])";

export const REDACTIONS: readonly Rule[] = [
  {
    name: "private-key",
    // PEM, PGP and RFC 4716 headers name it; a DER body's first base64 characters say it too.
    hints: ["private key", "mii", "mhccaqee", "mhqcaqee", "migkagebbd", "b3blbnnzac1rzxktdje"],
    scan: keyBlocks,
  },
  { name: "putty-key", hints: ["putty-user-key-file-"], scan: puttyKeys },
  { name: "anthropic-key", hints: ["sk-ant-"], pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", hints: ["sk-"], pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: "github-token",
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    pattern: /\bgh[pousr]_[A-Za-z0-9_.-]{20,}/g,
  },
  { name: "github-pat", hints: ["github_pat_"], pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  {
    name: "gitlab-token",
    hints: [
      "glpat-",
      "gldt-",
      "glptt-",
      "glrt-",
      "glsoat-",
      "glcbt-",
      "glimt-",
      "glagent-",
      "glffct-",
      "glc_",
      "glsa_",
    ],
    pattern:
      /\bgl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|ffct)-[A-Za-z0-9_-]{16,}|\bglc_[A-Za-z0-9+/]{32,}|\bglsa_[A-Za-z0-9_]{32,}/g,
  },
  { name: "npm-token", hints: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{30,}/g },
  { name: "pypi-token", hints: ["pypi-"], pattern: /\bpypi-[A-Za-z0-9_-]{40,}/g },
  { name: "huggingface-token", hints: ["hf_"], pattern: /\bhf_[A-Za-z0-9]{30,}/g },
  { name: "docker-token", hints: ["dckr_pat_"], pattern: /\bdckr_pat_[A-Za-z0-9_-]{20,}/g },
  { name: "groq-key", hints: ["gsk_"], pattern: /\bgsk_[A-Za-z0-9]{40,}/g },
  { name: "figma-token", hints: ["figd_"], pattern: /\bfigd_[A-Za-z0-9_-]{30,}/g },
  {
    name: "notion-token",
    hints: ["ntn_", "secret_"],
    pattern: /\bntn_[0-9]{11}[A-Za-z0-9]{30,}|\bsecret_[A-Za-z0-9]{43}\b/g,
  },
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
    pattern: /https:\/\/(?:[a-z]{1,20}\.)?discord(?:app)?\.com\/api\/webhooks\/[0-9]{1,30}\/[A-Za-z0-9_-]+/g,
  },
  { name: "stripe-key", hints: ["_live_", "_test_"], pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  {
    name: "shopify-token",
    hints: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g,
  },
  {
    name: "aws-access-key-id",
    hints: ["akia", "asia", "agpa", "aida", "aroa", "anpa", "abia", "acca"],
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  },
  { name: "google-api-key", hints: ["aiza"], pattern: /\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  { name: "twilio-key", hints: ["sk", "ac"], pattern: /\b(?:SK|AC)[0-9a-f]{32}\b/g },
  { name: "mailchimp-key", hints: ["-us"], pattern: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g },
  { name: "telegram-bot-token", hints: [":a"], pattern: new RegExp(`\\b[0-9]{5,16}:A[A-Za-z0-9_-]{34}${END}`, "g") },
  { name: "1password-service-account-token", hints: ["ops_ey"], pattern: /\bops_ey[A-Za-z0-9_+/-]{100,}={0,2}/g },
  { name: "mailgun-key", hints: ["key-"], pattern: /\bkey-[0-9a-z]{32}\b/g },
  { name: "google-oauth-token", hints: ["ya29."], pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  {
    name: "discord-bot-token",
    hints: ["."],
    pattern: /\b[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g,
  },
  // Beside an AWS key id or the words naming one, a 40-character mixed-case token is its secret (a git SHA is lower
  // case).
  {
    name: "aws-secret-key",
    hints: ["akia", "asia", "aws", "secret"],
    when: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|aws|secret/i,
    pattern:
      /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  },
  {
    name: "twilio-auth-token",
    hints: ["twilio", "ac"],
    when: /\bAC[0-9a-f]{32}\b|twilio/i,
    pattern: /(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z-])/g,
  },
  { name: "mysql-password", hints: ["mysql"], scan: mysqlPasswords },
  { name: "vault-token", hints: ["hvs.", "hvb.", "hvr."], pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{20,}/g },
  { name: "digitalocean-token", hints: ["doo_v1_", "dop_v1_", "dor_v1_"], pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { name: "databricks-token", hints: ["dapi"], pattern: /\bdapi[0-9a-f]{32}(?:-[0-9])?\b/g },
  { name: "linear-key", hints: ["lin_api_", "lin_oauth_"], pattern: /\blin_(?:api|oauth)_[A-Za-z0-9]{32,}/g },
  {
    name: "age-secret-key",
    hints: ["age-secret-key-1"],
    pattern: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/gi,
  },
  {
    name: "jwt",
    hints: ["eyj"],
    scan: jwts,
  },
  {
    name: "url-password",
    hints: ["://"],
    pattern: /((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{0,200}:)[^\s@/]{1,400}(?=@)/gi,
    keep: 1,
  },
  {
    name: "authorization",
    hints: ["authorization"],
    pattern:
      /\b((?:proxy-)?authorization["']?[ \t]{0,20}[:=][ \t]{0,20}["']?(?:(?:basic|bearer|token|digest|negotiate)[ \t]{1,20})?)[A-Za-z0-9._~+/=:-]{8,}/gi,
    keep: 1,
  },
  { name: "bearer-token", hints: ["bearer"], pattern: /\b([Bb]earer[ \t]{1,20})[A-Za-z0-9._~+/=-]{16,}/g, keep: 1 },
  {
    name: "cli-secret",
    hints: ["-pass", "-token", "-secret", "-api", "-auth", "-access"],
    pattern:
      /((?:^|\s)--?(?:password|passwd|pass|token|secret|api-?key|auth-token|access-token)(?:=|[ \t]{1,20}))(?:"[^"\n]{0,400}"|'[^'\n]{0,400}'|[^\s"']\S{0,400})/gim,
    keep: 1,
  },
  {
    name: "cli-user-password",
    hints: ["-u"],
    pattern: /((?:^|\s)(?:-u|--user)[ \t]{1,20}[^\s:]{1,200}:)\S{1,400}/g,
    keep: 1,
  },
  {
    name: "assignment",
    hints: NAME_HINTS,
    scan: namedValues,
  },
];
