/**
 * Handovers shared through git: a redacted copy of a checkout's authored handover in `.ai/repo/sessions/shared/`, one
 * file per branch and checkout, carrying its author, an opaque checkout id, branch, commit, times and citations. A
 * clone is offered it only while it has no authored handover of its own for the branch, labelled as shared; the
 * checkout that shared it never takes it for its own.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createHash, parseYaml } from "../lib/runtime.ts";
import { readLayerFile, RECORD_MAX_BYTES } from "../lib/safe-read.ts";
import type { Clean } from "../lib/redact.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { isCommitId, NO_HEAD, type Position } from "../repo/where.ts";
import { renderDocument, splitFrontMatter } from "./markdown.ts";
import { newer, type Meta } from "./record.ts";
import { explain, TIERS, type Explained, type Place, type Resolution, type Resolved, type Verdict } from "./resolve.ts";
import type { RecordKind } from "./kinds.ts";
import { readableBranch } from "./store.ts";
import { field } from "../lib/quote.ts";

/**
 * Each field's shape: the file is anyone's who can push, so a field outside it (a newline, a control character, a
 * forged heading, no bound) makes the record malformed: skipped and counted.
 */
const ONE_LINE = (max: number) =>
  new RegExp(`^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]{1,${max}}$`);
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const SHAPES: Record<(typeof KEYS)[number], RegExp> = {
  schema: /^shared-handover\/v1$/,
  created_at: STAMP,
  shared_at: STAMP,
  author: ONE_LINE(100),
  checkout: /^c-[0-9a-f]{16}$/,
  branch: ONE_LINE(255),
  head: /^[0-9a-f]{40}([0-9a-f]{24})?$|^NONE$/,
  working_tree: /^(clean|dirty|unknown)$/,
};

export const SHARED_SCHEMA = "shared-handover/v1";

const KEYS = ["schema", "created_at", "shared_at", "author", "checkout", "branch", "head", "working_tree"] as const;

export type SharedMeta = Record<(typeof KEYS)[number], string> & { claims?: string[] };
export type Shared = { path: string; file: string; meta: SharedMeta; body: string };

export type SharedBy = { author: string; checkout: string; shared_at: string };

export function checkoutOf(position: Pick<Position, "repositoryId" | "worktree">): string {
  return `c-${createHash("sha256", `${position.repositoryId}\0${position.worktree}`).slice(0, 16)}`;
}

/**
 * `shared/` inside the closed records' folder, which an older majordomus reads only the files of; undefined without a
 * sessions section.
 */
export function sharedDir(layer: Layer): string | undefined {
  return layer.manifest.sections.sessions === undefined ? undefined : join(sectionPath(layer, "sessions"), "shared");
}

export const sharedName = (branch: string, checkout: string) => `${readableBranch(branch)}--${checkout}.md`;

export function renderShared(meta: SharedMeta & { author: Clean }, body: Clean): string {
  const entries: Array<readonly [string, string | string[]]> = KEYS.map((k) => [k, meta[k]]);
  if (meta.claims && meta.claims.length > 0) entries.push(["claims", meta.claims]);
  return renderDocument(entries, body);
}

export async function readShared(path: string, file: string): Promise<Shared | undefined> {
  try {
    const split = splitFrontMatter(readLayerFile(path, { maxBytes: RECORD_MAX_BYTES }));
    if (!split) return undefined;
    const data = (await parseYaml(split.frontMatter)) as Record<string, unknown> | null;
    if (!data || data.schema !== SHARED_SCHEMA) return undefined;
    if (Object.keys(data).some((k) => k !== "claims" && !(KEYS as readonly string[]).includes(k))) return undefined;
    if (!KEYS.every((k) => typeof data[k] === "string" && SHAPES[k].test(data[k] as string))) return undefined;
    // A tracked file is anyone's: its commit must be a commit id, never a git option.
    if (data.head !== NO_HEAD && !isCommitId(data.head as string)) return undefined;
    const claims = data.claims;
    if (claims !== undefined && !(Array.isArray(claims) && claims.every((c) => typeof c === "string")))
      return undefined;
    return { path, file, meta: data as SharedMeta, body: split.body };
  } catch {
    return undefined;
  }
}

export async function sharedFor(
  layer: Layer,
  position: Pick<Position, "repositoryId" | "worktree" | "branch">,
): Promise<{ shared?: Shared; skipped: number }> {
  const dir = sharedDir(layer);
  if (!dir) return { skipped: 0 };
  let names: string[];
  try {
    if (!lstatSync(dir).isDirectory()) return { skipped: 0 };
    const prefix = `${readableBranch(position.branch)}--`;
    const own = sharedName(position.branch, checkoutOf(position));
    names = readdirSync(dir).filter((n) => n.startsWith(prefix) && n.endsWith(".md") && n !== own);
  } catch {
    return { skipped: 0 };
  }
  const mine = checkoutOf(position);
  let best: Shared | undefined;
  let skipped = 0;
  for (const file of names) {
    const read = await readShared(join(dir, file), file);
    if (!read) {
      skipped++;
      continue;
    }
    if (read.meta.branch !== position.branch || read.meta.checkout === mine) continue;
    if (!best || read.meta.created_at > best.meta.created_at) best = read;
  }
  return { shared: best, skipped };
}

export function asResolved(s: Shared): Resolved & { sharedBy: SharedBy } {
  const meta: Meta = {
    schema: "handover/v1",
    created_at: s.meta.created_at,
    seq: 0,
    how: "authored",
    task_id: "none",
    session: "none",
    repository_id: "shared",
    worktree: "",
    branch: s.meta.branch,
    head: s.meta.head,
    working_tree: s.meta.working_tree,
    changed_files: [],
    ...(s.meta.claims ? { claims: s.meta.claims } : {}),
  };
  return {
    path: s.path,
    file: s.file,
    meta,
    body: s.body,
    tier: 2,
    match: TIERS[2],
    sharedBy: { author: s.meta.author, checkout: s.meta.checkout, shared_at: s.meta.shared_at },
  };
}

/**
 * A shared handover offered where this checkout has no authored one; its own newer derived record is named beside it.
 */
export async function offerShared(
  resolution: Resolution,
  layer: Layer,
  position: Pick<Position, "repositoryId" | "worktree" | "branch">,
): Promise<Resolution & { sharedBy?: SharedBy }> {
  const own = resolution.record;
  if (own && own.meta.how === "authored") return resolution;
  const { shared, skipped } = await sharedFor(layer, position);
  if (!shared) return { ...resolution, skipped: resolution.skipped + skipped };
  const record = asResolved(shared);
  const since = own && newer(own.meta, record.meta) ? own : undefined;
  return { record, since, skipped: resolution.skipped + skipped, sharedBy: record.sharedBy };
}

/** `explain` as the briefing offers: a shared handover, where there is one, is selected and first. */
export async function explainOffered(
  kind: RecordKind,
  layer: Layer,
  place: Place,
  position: Pick<Position, "repositoryId" | "worktree" | "branch">,
): Promise<Explained & { sharedBy?: SharedBy }> {
  const explained = await explain(kind, layer, place);
  if (kind.name !== "handover") return explained;
  const chosen = await offerShared({ record: explained.record, since: explained.since, skipped: 0 }, layer, position);
  if (!chosen.sharedBy || !chosen.record) return explained;
  return {
    ...explained,
    record: chosen.record,
    since: chosen.since,
    sharedBy: chosen.sharedBy,
    candidates: offeredCandidates(explained.candidates, chosen.record, chosen.sharedBy, chosen.since),
  };
}

export function offeredCandidates(
  candidates: readonly Verdict[],
  shared: Resolved,
  by: SharedBy,
  since: Resolved | undefined,
): Verdict[] {
  const selected: Verdict = {
    path: shared.path,
    verdict: "selected",
    reason:
      `shared by ${field(by.author)} from another checkout (${field(by.checkout)}, ` +
      `shared ${field(by.shared_at)}): this checkout has no authored handover of its own on ${field(shared.meta.branch)}`,
    tier: shared.tier,
    created_at: shared.meta.created_at,
    how: "authored",
  };
  const own = (c: Verdict): Verdict =>
    c.verdict !== "selected" && c.path !== since?.path
      ? c
      : {
          ...c,
          verdict: "superseded",
          reason:
            c.path === since?.path
              ? `this checkout's own derived record, newer than the shared handover: shown beside it as ` +
                `what happened since, never in its place`
              : `this checkout's own record is derived: a handover shared from another checkout, in its ` +
                `author's words, is the account`,
        };
  return [selected, ...candidates.map(own)];
}
