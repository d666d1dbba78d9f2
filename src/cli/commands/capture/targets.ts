/** What `capture install` and `capture uninstall` share: which clients a run is for, and how its report is printed. */
import { adapted, providers, type Hooks, type Provider } from "../../../providers/index.ts";
import type { InstallReport } from "../../../capture/install.ts";
import { out, outJson } from "../../print.ts";

/** The client `--provider` names, or every one majordomus has an adapter for. */
export async function targetsOf(provider: unknown): Promise<Array<Provider & { hooks: Hooks }>> {
  if (provider !== undefined) return [await adapted(String(provider))];
  return Promise.all([...(await providers()).values()].filter((p) => p.hooks).map((p) => adapted(p.id)));
}

export function printReports(reports: Array<{ provider: string } & InstallReport>, json: boolean): void {
  if (json) return outJson("capture-install", { items: reports });
  for (const r of reports) for (const l of r.lines) out(`${l.action.padEnd(16)} ${l.path}${l.note ? ` — ${l.note}` : ""}`);
}
