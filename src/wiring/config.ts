/**
 * The client files `capture install` writes: one way to read them, and nothing read or written through a link
 * anywhere from the repository root down (a stranger may track `.mcp.json -> ~/.ssh/id_rsa`).
 */
import { lstatSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { readIfExists } from "../lib/fsx.ts";
import { answered, type Hooks, type Provider } from "../providers/index.ts";

export function linkOnTheWay(root: string, rel: string): string | undefined {
  const chain: string[] = [];
  for (let p = join(root, rel); p !== root && p !== dirname(p); p = dirname(p)) chain.unshift(p);
  return chain
    .map((p) => (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? relative(root, p) : undefined))
    .find((x) => x !== undefined);
}

export function refuseLinks(root: string, rel: string): void {
  const link = linkOnTheWay(root, rel);
  if (link)
    throw new Failure(
      "refused",
      `${link} is a symbolic link; majordomus writes nothing through one`,
      "replace it with a real folder or file (`ls -l` shows where it points), then run the command again",
    );
}

export function refuseLinksFor(root: string, provider: Provider & { hooks: Hooks }): void {
  const h = provider.hooks;
  const paths = [
    h.config,
    ...answered(h).map((e) => h.events[e].shim),
    ...(h.mcp ? [h.mcp.config] : []),
    ...Object.values(h.mods ?? {}).map((m) => m.target.replace(/\/$/, "")),
  ];
  for (const rel of paths) refuseLinks(root, rel);
}

export type ClientConfig =
  { state: "absent" } | { state: "object"; data: Record<string, unknown> } | { state: "unusable"; why: string };

export function readConfig(root: string, rel: string): ClientConfig {
  const link = linkOnTheWay(root, rel);
  if (link) return { state: "unusable", why: `${link} is a symbolic link; it was not read` };
  const kind = lstatSync(join(root, rel), { throwIfNoEntry: false });
  if (kind && !kind.isFile())
    return {
      state: "unusable",
      why:
        `${rel} is ${kind.isDirectory() ? "a folder" : "not a regular file"}, not a ` +
        `configuration file; it was not read`,
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

/** For a command that changes the file: absent or an object; anything else stops it, the file as it was. */
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

export function objectAt(config: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = config[key];
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
