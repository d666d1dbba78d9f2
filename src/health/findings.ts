/** Findings: one line each, `LEVEL category subject — message  [reproduce: command]`, or JSON lines. */
export type Level = "OK" | "INFO" | "WARN" | "FAIL";
/** `fixable`: `doctor --fix` repairs what this finding names. */
export type Finding = {
  level: Level;
  category: string;
  subject: string;
  message: string;
  reproduce: string;
  fixable?: true;
};

export function finding(level: Level, category: string, subject: string, message: string, reproduce: string): Finding {
  return { level, category, subject, message, reproduce };
}

export const fixable = (f: Finding): Finding => ({ ...f, fixable: true });

export function render(f: Finding): string {
  return `${f.level.padEnd(4)} ${f.category} ${f.subject} — ${f.message}  [reproduce: ${f.reproduce}]`;
}

export function failing(findings: readonly Finding[]): number {
  return findings.filter((f) => f.level === "FAIL").length;
}
