/** The manifest: the only source of the layer's paths. An undeclared section is missing, never inferred. */
import { join, normalize } from "node:path";
import { readAsset } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";
import { isDirectory } from "../lib/fsx.ts";
import { readLayerFileIfExists, RECORD_MAX_BYTES } from "../lib/safe-read.ts";
import { parseDocument, type DocumentKind } from "./document.ts";

export const LAYER_DIR = ".ai";
export const MANIFEST_FILE = "manifest.yaml";
export const MANIFEST_SCHEMA = "ai-repository/v1";

type Half = "repo" | "local";

export const SECTIONS = {
  policy: { half: "repo", kind: "file" },
  sessions: { half: "repo", kind: "dir" },
  state: { half: "local", kind: "dir" },
  handovers: { half: "local", kind: "dir" },
  checkpoints: { half: "local", kind: "dir" },
  prompts: { half: "local", kind: "dir" },
  session_contexts: { half: "local", kind: "dir" },
  cache: { half: "local", kind: "dir" },
} as const satisfies Record<string, { half: Half; kind: "file" | "dir" }>;

export type SectionName = keyof typeof SECTIONS;

export type Manifest = {
  schema: string;
  repo: { path: string };
  local: { path: string; tracked: false };
  sections: Partial<Record<SectionName, string>>;
};

export type Layer = {
  root: string;
  dir: string;
  manifestPath: string;
  manifest: Manifest;
};

function checkVersion(data: unknown, file: string): void {
  const schema = (data as { schema?: unknown } | null)?.schema;
  const match = typeof schema === "string" ? /^ai-repository\/v(\d+)$/.exec(schema) : null;
  if (match && Number(match[1]) > 1) {
    throw new Failure(
      "contract",
      `${file}: schema ${schema} is newer than this majordomus understands (${MANIFEST_SCHEMA})`,
      "upgrade majordomus; this binary will not read a layer written by a newer one",
    );
  }
}

function checkSectionPaths(manifest: Manifest, file: string): string[] {
  const problems: string[] = [];
  for (const [name, rel] of Object.entries(manifest.sections)) {
    const row = SECTIONS[name as SectionName];
    const base = manifest[row.half].path;
    const clean = normalize(rel).replace(/\\/g, "/").replace(/\/$/, "");
    if (rel.startsWith("/") || clean.split("/").includes("..") || !clean.startsWith(`${base}/`)) {
      problems.push(
        `${file}: sections.${name}: must be a relative path inside ${base}/ (found ${JSON.stringify(rel)})`,
      );
    }
  }
  return problems;
}

const MANIFEST: DocumentKind<Manifest> = {
  noun: `${MANIFEST_SCHEMA} manifest`,
  schema: "share/schemas/manifest.schema.json",
  syntaxHint: "fix the syntax, or move the file away and run `majordomus init --extend`",
  precheck: checkVersion,
  crossChecks: checkSectionPaths,
};

export function parseManifest(text: string, file: string, options: { strict?: boolean } = {}): Promise<Manifest> {
  return parseDocument(MANIFEST, text, file, options);
}

export async function loadLayer(root: string): Promise<Layer> {
  const dir = join(root, LAYER_DIR);
  const manifestPath = join(dir, MANIFEST_FILE);
  const text = readLayerFileIfExists(manifestPath, { maxBytes: RECORD_MAX_BYTES });
  if (text === undefined) {
    if (isDirectory(dir))
      throw new Failure(
        "missing",
        `${manifestPath} is missing`,
        "run `majordomus init --extend` to restore the manifest (nothing else is overwritten)",
      );
    throw new Failure("missing", `no .ai layer in ${root}`, "run `majordomus init` to create one");
  }
  return { root, dir, manifestPath, manifest: await parseManifest(text, manifestPath) };
}

export function sectionPath(layer: Layer, name: SectionName): string {
  const rel = layer.manifest.sections[name];
  if (rel === undefined) {
    throw new Failure(
      "missing",
      `${layer.manifestPath} declares no sections.${name}`,
      `add it under sections (e.g. \`${name}: ${defaultSectionPath(name)}\`)`,
    );
  }
  return join(layer.dir, rel);
}

function defaultSectionPath(name: SectionName): string {
  const line = new RegExp(`^\\s+${name}:\\s*(\\S+)`, "m").exec(readAsset("share/skeleton/manifest.yaml"));
  return line?.[1] ?? "...";
}
