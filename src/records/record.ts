import type { Stats } from "node:fs";
import { readLayerEntry, RECORD_MAX_BYTES, unreadable } from "../lib/safe-read.ts";
import { Failure } from "../lib/failure.ts";
import { parseYaml } from "../lib/runtime.ts";
import { renderDocument, splitFrontMatter } from "./markdown.ts";
import { FRONT_MATTER_KEYS, OPTIONAL_FRONT_MATTER_KEYS, type RecordKind } from "./kinds.ts";

export type How = "authored" | "derived";

export type Meta = {
  schema: string;
  created_at: string;
  seq: number;
  how: How;
  task_id: string;
  session: string;
  repository_id: string;
  worktree: string;
  branch: string;
  head: string;
  working_tree: string;
  changed_files: string[];
  claims?: string[];
};

const ALL_KEYS: readonly string[] = [...FRONT_MATTER_KEYS, ...OPTIONAL_FRONT_MATTER_KEYS];

export type Loaded = { path: string; file: string; meta: Meta; body: string };

export function render(meta: Meta, body: string): string {
  const entries: Array<readonly [string, string | number | string[]]> = FRONT_MATTER_KEYS.map((k) => [k, meta[k]]);
  if (meta.claims && meta.claims.length > 0) entries.push(["claims", meta.claims]);
  return renderDocument(entries, body);
}

/**
 * A body may not set what is computed: a front-matter-like line, or a body opening its own front matter, is refused
 * so nobody can forge a record's identity.
 */
export function identityProblems(body: string, keys: readonly string[] = ALL_KEYS): string[] {
  const problems: string[] = [];
  if (/^\s*---\s*$/m.test(body.split("\n")[0] ?? ""))
    problems.push("the body opens with `---`: front matter is computed, never written by hand");
  body.split("\n").forEach((line, i) => {
    const key = /^([a-z_]+):/.exec(line)?.[1];
    if (key && keys.includes(key)) problems.push(`line ${i + 1} sets \`${key}:\`, which majordomus computes`);
  });
  return problems;
}

export type Parsed = { ok: true; record: Loaded } | { ok: false; reason: string };

const MAJOR = /^([a-z]+)\/v(\d+)$/;

/** `seen`: what the read's fstat saw (doctor keeps it instead of looking again). */
export async function readRecord(
  kind: RecordKind,
  path: string,
  file: string,
  seen?: (stats: Stats) => void,
): Promise<Parsed> {
  let text: string;
  try {
    const read = readLayerEntry(path, { maxBytes: RECORD_MAX_BYTES });
    seen?.(read.stats);
    text = read.text;
  } catch (err) {
    return { ok: false, reason: unreadable(err, path) };
  }
  const split = splitFrontMatter(text);
  if (!split) return { ok: false, reason: "no front matter (the file must open with a `---` block)" };
  let data: unknown;
  try {
    data = await parseYaml(split.frontMatter);
  } catch (err) {
    return { ok: false, reason: `front matter is not valid YAML: ${(err as Error).message}` };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return { ok: false, reason: "front matter is not a map" };
  const meta = data as Record<string, unknown>;
  const schema = String(meta.schema ?? "");
  const [, name, version] = MAJOR.exec(schema) ?? [];
  const [, wantName, wantVersion] = MAJOR.exec(kind.schema)!;
  if (name !== wantName)
    return { ok: false, reason: `schema is ${JSON.stringify(meta.schema ?? null)}, not ${kind.schema}` };
  if (Number(version) > Number(wantVersion))
    return { ok: false, reason: `schema ${schema} is newer than this majordomus reads (${kind.schema})` };
  const unknown = Object.keys(meta).filter((k) => !ALL_KEYS.includes(k));
  if (unknown.length > 0) return { ok: false, reason: `undeclared front matter key(s): ${unknown.join(", ")}` };
  for (const key of FRONT_MATTER_KEYS) {
    const value = meta[key];
    const ok =
      key === "seq"
        ? Number.isInteger(value)
        : key === "changed_files"
          ? Array.isArray(value) && value.every((v) => typeof v === "string")
          : typeof value === "string" && value !== "";
    if (!ok) return { ok: false, reason: `front matter ${key} is missing or has the wrong type` };
  }
  const claims = meta.claims;
  if (claims !== undefined && !(Array.isArray(claims) && claims.every((v) => typeof v === "string")))
    return { ok: false, reason: "front matter claims is not a list of strings" };
  return { ok: true, record: { path, file, meta: meta as unknown as Meta, body: split.body } };
}

/** created_at, then the checkout's write sequence; never file times. */
export function newer(a: Meta, b: Meta): boolean {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta > tb;
  if (a.created_at !== b.created_at) return a.created_at > b.created_at;
  return a.seq > b.seq;
}

export function bodyRefusal(kind: RecordKind, body: string): Failure | undefined {
  const problems = identityProblems(body);
  if (problems.length === 0) return undefined;
  return new Failure(
    "contract",
    `the ${kind.noun} body tries to set its own identity`,
    "remove those lines; majordomus computes them",
    problems,
  );
}
