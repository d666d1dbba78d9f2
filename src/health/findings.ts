/** Findings: one line each, `LEVEL category subject — message  [reproduce: command]`, or JSON lines. */
export type Level = "OK" | "INFO" | "WARN" | "FAIL";
export type Finding = { level: Level; category: string; subject: string; message: string; reproduce: string };

export function render(f: Finding): string {
  return `${f.level.padEnd(4)} ${f.category} ${f.subject} — ${f.message}  [reproduce: ${f.reproduce}]`;
}

export function failing(findings: readonly Finding[]): number {
  return findings.filter((f) => f.level === "FAIL").length;
}
