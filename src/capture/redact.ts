/**
 * Secrets are redacted from a prompt before anything is written. One row per kind of secret;
 * each match becomes `[redacted:<name>]`. The `assignment` row keeps the name and the separator
 * (`password=`) and replaces only the value.
 */
type Rule = { name: string; pattern: RegExp; keep?: number };

export const REDACTIONS: readonly Rule[] = [
  { name: "private-key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  { name: "github-token", pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  { name: "github-pat", pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { name: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "google-api-key", pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { name: "slack-token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "stripe-key", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: "bearer-token", pattern: /\b([Bb]earer\s+)[A-Za-z0-9._~+/=-]{20,}/g, keep: 1 },
  {
    name: "assignment",
    pattern: /\b((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret(?:[_-]?key)?|client[_-]?secret|passw(?:or)?d|pwd|token)\s*["']?\s*[:=]\s*["']?)[^\s"'&;,]{6,}/gi,
    keep: 1,
  },
];

export function redact(text: string): { text: string; redacted: string[] } {
  const fired = new Set<string>();
  let out = text;
  for (const rule of REDACTIONS) {
    out = out.replace(rule.pattern, (...groups: string[]) => {
      fired.add(rule.name);
      const kept = rule.keep ? groups[rule.keep] ?? "" : "";
      return `${kept}[redacted:${rule.name}]`;
    });
  }
  return { text: out, redacted: [...fired].sort() };
}
