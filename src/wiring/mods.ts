/** The mods a client loads from the repository (Claude Code's plugin folder): written, kept or removed as their switch says. */
import { readdirSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { listAssets } from "../assets/index.ts";
import { ensureDir, exists, readIfExists, writeFileAtomic } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { consents } from "../policy/index.ts";
import type { Hooks, ModRow, Provider } from "../providers/index.ts";
import { MARKER } from "./shims.ts";
import type { Line } from "./report.ts";
import type { InstallReport } from "./report.ts";

export function modFiles(source: string): Array<{ rel: string; bytes: Uint8Array; mode: number }> {
  return listAssets(source)
    .filter((a) => !a.path.endsWith(".test.ts"))
    .map((a) => ({ rel: a.path.slice(source.length), bytes: a.bytes, mode: a.mode }));
}

export function removeOurs(target: string, files: Array<{ rel: string }>): string[] {
  for (const f of files) {
    try {
      unlinkSync(join(target, f.rel));
    } catch {}
  }
  const types = join(target, ".claude-plugin", "types");
  const walk = (dir: string): string[] => {
    try {
      return readdirSync(dir).flatMap((n) =>
        statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)],
      );
    } catch {
      return [];
    }
  };
  for (const f of walk(types)) unlinkSync(f);
  const dirs = (dir: string): string[] => {
    try {
      return readdirSync(dir)
        .filter((n) => statSync(join(dir, n)).isDirectory())
        .flatMap((n) => [...dirs(join(dir, n)), join(dir, n)]);
    } catch {
      return [];
    }
  };
  for (const d of [...dirs(target), target]) {
    try {
      rmdirSync(d);
    } catch {}
  }
  return walk(target);
}

/** One mod, converged on what the switch says: its install line. */
function oneMod(ws: Workspace, name: string, row: ModRow, on: boolean): Line {
  const rel = row.target.replace(/\/$/, "");
  const target = join(ws.position.worktree, row.target);
  const files = modFiles(row.source);
  const register = readIfExists(join(target, "hooks", "register.ts"));
  if (exists(target) && (register === undefined || !register.includes(MARKER)))
    return { path: rel, action: "left alone", note: `the ${name} folder was not written by majordomus` };
  if (!on) {
    if (!exists(target)) return { path: rel, action: "not written", note: `${row.switch} is not true` };
    const left = removeOurs(target, files);
    const note = left.length ? `${row.switch} is not true; files not ours were left: ${left.join(", ")}` : undefined;
    return { path: rel, action: "removed", note: note ?? `${row.switch} is not true` };
  }
  const drifted = files.filter((f) => {
    const current = readIfExists(join(target, f.rel));
    return current === undefined || current !== Buffer.from(f.bytes).toString("utf8");
  });
  if (drifted.length === 0) return { path: rel, action: "already present" };
  const fresh = !exists(target);
  for (const f of files) {
    ensureDir(dirname(join(target, f.rel)));
    writeFileAtomic(join(target, f.rel), f.bytes, f.mode);
  }
  const note = fresh ? "the client loads it at its next start" : `${drifted.length} file(s) had drifted`;
  return { path: rel, action: fresh ? "written" : "rewritten", note };
}

export function installMods(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  policy: Parameters<typeof consents>[0],
  report: InstallReport,
): void {
  for (const [name, row] of Object.entries(provider.hooks.mods ?? {}))
    report.lines.push(oneMod(ws, name, row, consents(policy, row.switch)));
}
