/** Human rendering of ledger entries: one line each, envelope first, then the payload as key=value. */
import { payloadOf, type Entry } from "./line.ts";

function value(v: unknown): string {
  if (typeof v === "string" && v !== "" && !/[\s"=]/.test(v)) return v;
  return JSON.stringify(v);
}

export function formatEntry(entry: Entry): string {
  const head = entry.head === "NONE" ? "NONE" : entry.head.slice(0, 12);
  const parts = [entry.ts, entry.event, `${entry.branch}@${head}`];
  if (entry.session) parts.push(`session=${entry.session}`);
  for (const [k, v] of Object.entries(payloadOf(entry))) parts.push(`${k}=${value(v)}`);
  return parts.join("  ");
}
