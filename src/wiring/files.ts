/** What belongs in git after `init` and `capture install`: the layer's tracked half and exactly what install wrote. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readIfExists } from "../lib/fsx.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { answered, providers, type Hooks, type Provider } from "../providers/index.ts";
import { MARKER, wholeFiles } from "./shims.ts";
import { commandsIn, dialectOf } from "./dialects.ts";
import { objectAt, readConfig } from "./config.ts";
import { isOurMcpEntry } from "./mcp-entry.ts";

const LAYER = [".ai", ".gitignore"];

function clientFiles(root: string, provider: Provider & { hooks: Hooks }): string[] {
  const h = provider.hooks;
  const shims = wholeFiles(provider)
    .map((f) => f.rel)
    .filter((rel) => (readIfExists(join(root, rel)) ?? "").includes(MARKER));
  if (shims.length === 0) return [];
  const config = readConfig(root, h.config);
  const names =
    config.state === "object" &&
    answered(h).some((e) =>
      commandsIn(config.data, h.events[e].event, dialectOf(h)).some((c) => c.includes(h.events[e].shim)),
    );
  const mods = Object.values(h.mods ?? {})
    .map((m) => m.target.replace(/\/$/, ""))
    .filter((rel) => (readIfExists(join(root, rel, "hooks", "register.ts")) ?? "").includes(MARKER));
  const mcp = h.mcp ? readConfig(root, h.mcp.config) : undefined;
  const server = mcp?.state === "object" && isOurMcpEntry(objectAt(mcp.data, "mcpServers")?.[h.mcp!.server]);
  return [...(names ? [h.config] : []), ...shims, ...mods, ...(server ? [h.mcp!.config] : [])];
}

export async function filesToCommit(ws: Workspace): Promise<string[]> {
  const root = ws.position.worktree;
  const wired = [...(await providers()).values()].filter(
    (p): p is Provider & { hooks: Hooks } => p.hooks !== undefined,
  );
  const files = [...LAYER.filter((rel) => existsSync(join(root, rel))), ...wired.flatMap((p) => clientFiles(root, p))];
  return [...new Set(files)];
}

/** The line a person runs to commit them, as printed after an install. */
export const gitAddLine = (files: readonly string[]): string =>
  `git add ${files.join(" ")} && git commit -m "Supervise with majordomus"`;
