/**
 * The client files `capture install` writes into the repository (a settings file, hooks.json,
 * .mcp.json, the shims, a mod's folder): one way to read them, and one rule for every path on the
 * way to them. A stranger's repository may track `.claude -> ~/bin` or `.mcp.json -> ~/.ssh/id_rsa`:
 * nothing is read or written through a symbolic link, anywhere from the repository root down.
 */
import { lstatSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { readIfExists } from "../lib/fsx.ts";
import { HOOK_EVENTS, type Hooks, type Provider } from "../providers/index.ts";

/** The first symbolic link on the way from the repository root to `rel` (inclusive), repository-relative; or undefined. */
export function linkOnTheWay(root: string, rel: string): string | undefined {
  const chain: string[] = [];
  for (let p = join(root, rel); p !== root && p !== dirname(p); p = dirname(p)) chain.unshift(p);
  return chain
    .map((p) => (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? relative(root, p) : undefined))
    .find((x) => x !== undefined);
}

/** Stop before writing `rel` when a link is on the way to it. */
export function refuseLinks(root: string, rel: string): void {
  const link = linkOnTheWay(root, rel);
  if (link)
    throw new Failure(
      "refused",
      `${link} is a symbolic link; majordomus writes nothing through one`,
      "replace it with a real folder or file (`ls -l` shows where it points), then run the command again",
    );
}

/** Every path `capture install` or `uninstall` may touch for a client; checked before anything changes. */
export function refuseLinksFor(root: string, provider: Provider & { hooks: Hooks }): void {
  const h = provider.hooks;
  const paths = [
    h.config,
    ...HOOK_EVENTS.map((e) => h.events[e].shim),
    ...(h.mcp ? [h.mcp.config] : []),
    ...Object.values(h.mods ?? {}).map((m) => m.target.replace(/\/$/, "")),
  ];
  for (const rel of paths) refuseLinks(root, rel);
}

export type ClientConfig =
  { state: "absent" } | { state: "object"; data: Record<string, unknown> } | { state: "unusable"; why: string };

/** A client's JSON configuration file in the repository, as an object; absent; or why it cannot be used (a link, not JSON, not an object). */
export function readConfig(root: string, rel: string): ClientConfig {
  const link = linkOnTheWay(root, rel);
  if (link) return { state: "unusable", why: `${link} is a symbolic link; it was not read` };
  const kind = lstatSync(join(root, rel), { throwIfNoEntry: false });
  if (kind && !kind.isFile())
    return {
      state: "unusable",
      why: `${rel} is ${kind.isDirectory() ? "a folder" : "not a regular file"}, not a configuration file; it was not read`,
    };
  const text = readIfExists(join(root, rel));
  if (text === undefined) return { state: "absent" };
  try {
    const data = JSON.parse(text) as unknown;
    if (!data || typeof data !== "object" || Array.isArray(data))
      return { state: "unusable", why: `${rel} is not a JSON object` };
    return { state: "object", data: data as Record<string, unknown> };
  } catch (err) {
    return { state: "unusable", why: `${rel} is not valid JSON (${(err as Error).message.split("\n")[0]})` };
  }
}

/** The same, for a command that changes the file: absent (undefined), or the object; anything else stops it, the file as it was. */
export function configToChange(root: string, rel: string, command: string): Record<string, unknown> | undefined {
  const read = readConfig(root, rel);
  if (read.state === "unusable")
    throw new Failure(
      "contract",
      `${read.why}; nothing was changed in it`,
      `fix it, then run \`majordomus ${command}\` again`,
    );
  return read.state === "object" ? read.data : undefined;
}

/** A named object inside a configuration (`hooks`, `mcpServers`), when it is one. */
export function objectAt(config: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = config[key];
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
