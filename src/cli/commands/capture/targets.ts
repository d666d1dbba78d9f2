/** What `capture install` and `capture uninstall` share: which clients a run is for, and how its report is printed. */
import { existsSync } from "node:fs";
import { onPath } from "../../../lib/path.ts";
import { join } from "node:path";
import { adapted, providers, type Hooks, type Provider } from "../../../providers/index.ts";
import type { InstallReport } from "../../../wiring/install.ts";
import { err, out, outJson } from "../../print.ts";

/** The client `--provider` names, or every one majordomus has an adapter for. */
export async function targetsOf(provider: unknown): Promise<Array<Provider & { hooks: Hooks }>> {
  if (provider !== undefined) return [await adapted(String(provider))];
  return Promise.all([...(await providers()).values()].filter((p) => p.hooks).map((p) => adapted(p.id)));
}

/** The client majordomus's hooks and mod are built around: always wired without --provider (it is often run from an IDE, not from PATH). */
const ALWAYS = "claude-code";

/**
 * What `capture install` wires without --provider: Claude Code always, and each other client it
 * finds here (its configuration file in the repository) or on PATH; each with why.
 */
export async function foundTargets(
  worktree: string,
): Promise<Array<{ provider: Provider & { hooks: Hooks }; why: string }>> {
  const all = await targetsOf(undefined);
  return all.flatMap((p) => {
    if (existsSync(join(worktree, p.hooks.config))) return [{ provider: p, why: `${p.hooks.config} is here` }];
    const bin = p.hooks.executable ? onPath(p.hooks.executable, { outside: worktree }) : undefined;
    if (bin) return [{ provider: p, why: `${p.hooks.executable} is on PATH (${bin})` }];
    return p.id === ALWAYS
      ? [{ provider: p, why: "always (the client majordomus is built around; it may run from an IDE, off PATH)" }]
      : [];
  });
}

export function printReports(reports: Array<{ provider: string } & InstallReport>, json: boolean): void {
  if (json) return outJson("capture-install", { items: reports });
  for (const r of reports)
    for (const l of r.lines) out(`${l.action.padEnd(16)} ${l.path}${l.note ? ` — ${l.note}` : ""}`);
  for (const r of reports) {
    if (!r.trust || r.trust.trusted) continue;
    if (r.trust.pending) {
      err(`majordomus: ${r.provider}: ${r.trust.reason}`);
      continue;
    }
    err(`majordomus: ${r.provider} will not run these hooks yet: ${r.trust.reason}`);
    for (const step of r.trust.steps) err(`  → ${step}`);
  }
}
