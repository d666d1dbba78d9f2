/** Reading closed session records back (`.ai/repo/sessions/`), newest first, never by file time. */
import { readLayerEntry, RECORD_MAX_BYTES, unreadable } from "../lib/safe-read.ts";
import { readdirSync, type Stats } from "node:fs";
import { join, relative } from "node:path";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { parseYaml } from "../lib/runtime.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { compactStamp } from "../lib/clock.ts";
import { RECORD_KEYS, TRANSCRIPT_KEYS } from "./schema.ts";

export type ClosedRecord = { path: string; meta: Record<string, unknown>; body: string };
export type ClosedListing = { records: ClosedRecord[]; rejected: Array<{ path: string; reason: string }> };

function recordNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith(".md") && n !== "README.md" && !n.startsWith("."));
  } catch {
    return [];
  }
}

export type ClosedEntry =
  { ok: true; record: ClosedRecord; stats: Stats } | { ok: false; path: string; reason: string };

/** `mention`: a record whose text does not hold it is passed over unparsed (what most of them are, to a start). */
async function readOne(
  dir: string,
  name: string,
  worktree: string,
  bodies: boolean,
  mention?: string,
): Promise<ClosedEntry> {
  const path = join(dir, name);
  const rel = relative(worktree, path);
  let entry: { text: string; stats: Stats };
  try {
    entry = readLayerEntry(path, { maxBytes: RECORD_MAX_BYTES });
  } catch (err) {
    // A link a stranger's repository tracks here (to /dev/zero) is named, never read.
    return { ok: false, path: rel, reason: unreadable(err, path) };
  }
  if (mention !== undefined && !entry.text.includes(mention)) return { ok: false, path: rel, reason: "not named" };
  const split = splitFrontMatter(entry.text);
  if (!split) return { ok: false, path: rel, reason: "no front matter" };
  let meta: Record<string, unknown>;
  try {
    meta = (await parseYaml(split.frontMatter)) as Record<string, unknown>;
  } catch (err) {
    return { ok: false, path: rel, reason: `front matter is not YAML: ${(err as Error).message}` };
  }
  if (meta?.schema !== "session/v1")
    return {
      ok: false,
      path: rel,
      reason: `schema ${JSON.stringify(meta?.schema ?? null)}; this majordomus reads session/v1`,
    };
  const keys = Object.keys(meta);
  const transcript = keys.filter((k) => (TRANSCRIPT_KEYS as readonly string[]).includes(k));
  if (transcript.length > 0)
    return { ok: false, path: rel, reason: `carries conversation key(s): ${transcript.join(", ")}` };
  const unknown = keys.filter((k) => !(RECORD_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) return { ok: false, path: rel, reason: `undeclared key(s): ${unknown.join(", ")}` };
  return { ok: true, record: { path: rel, meta, body: bodies ? split.body : "" }, stats: entry.stats };
}

/**
 * `limit` with `branch`: only that many of the branch's newest are read (names start with the closing time), so a
 * listing costs what it shows; `more` says whether older ones exist.
 */
export async function readClosed(
  ws: { layer: Layer; position: { worktree: string } },
  options: { limit?: number; branch?: string } = {},
): Promise<ClosedListing & { more: boolean }> {
  const dir = sectionPath(ws.layer, "sessions");
  const names = recordNames(dir);
  const out: ClosedListing & { more: boolean } = { records: [], rejected: [], more: false };
  const limited = options.limit !== undefined && options.limit > 0;
  if (limited) names.sort().reverse();
  // Names carry the second only: the rest of that second is read too, so the newest by the millisecond are among them.
  const second = (name: string) => name.slice(0, name.indexOf("--"));
  let full: string | undefined;
  for (const name of names) {
    if (
      limited &&
      full === undefined &&
      out.records.filter((r) => options.branch === undefined || r.meta.branch === options.branch).length >=
        options.limit!
    )
      full = second(out.records.at(-1)?.path.split("/").pop() ?? name);
    if (full !== undefined && second(name) !== full) {
      out.more = true;
      break;
    }
    const entry = await readOne(dir, name, ws.position.worktree, true);
    if (entry.ok) out.records.push(entry.record);
    else out.rejected.push({ path: entry.path, reason: entry.reason });
  }
  out.records.sort(
    (a, b) => String(b.meta.closed_at).localeCompare(String(a.meta.closed_at)) || b.path.localeCompare(a.path),
  );
  return out;
}

/** Every closed record handed to `visit`, front matter only, none kept: doctor holds one at a time. */
export async function eachClosed(
  ws: { layer: Layer; position: { worktree: string } },
  visit: (entry: ClosedEntry) => void,
  skip: (path: string) => boolean = () => false,
): Promise<void> {
  await eachClosedIn(sectionPath(ws.layer, "sessions"), ws.position.worktree, visit, skip);
}

export async function eachClosedIn(
  dir: string,
  worktree: string,
  visit: (entry: ClosedEntry) => void,
  skip: (path: string) => boolean = () => false,
): Promise<void> {
  for (const name of recordNames(dir)) {
    if (skip(join(dir, name))) continue;
    visit(await readOne(dir, name, worktree, false));
  }
}

/** The later sessions that acted on a handed Next Action, as their closed records' uptake says: the newest named. */
export type Acted = {
  /** How many sessions acted on it; `acted_on` is what they did together, `state` acted when that is every step. */
  sessions: number;
  session_id: string;
  provider: string;
  closed_at: string;
  state: "acted" | "partly";
  named: string[];
  acted_on: string[];
  /** Its closed record, and the handovers it wrote itself (derived or authored), newest last. */
  record: string;
  handovers: string[];
};

const ACTED_LOOKED_AT = 20;

/** Only a live authored handover is asked after: a derived record tells its own account. */
export const actedFor = (
  ws: { layer: Layer; position: { worktree: string } },
  kind: string,
  v: { path: string; created_at: string; how: string; history: boolean },
): Promise<Acted | undefined> =>
  kind === "handover" && !v.history && v.how === "authored"
    ? actedOn(ws, v.path, v.created_at).catch(() => undefined)
    : Promise.resolve(undefined);

/**
 * The newest session closed since `since` that acted on the Next Action of `handed`: the closed records named from
 * that second on, newest first, at most ACTED_LOOKED_AT of them (a name starts with its closing time).
 */
export async function actedOn(
  ws: { layer: Layer; position: { worktree: string } },
  handed: string,
  since: string,
): Promise<Acted | undefined> {
  const at = new Date(since);
  if (Number.isNaN(at.getTime())) return undefined;
  const from = compactStamp(at);
  const dir = sectionPath(ws.layer, "sessions");
  const names = recordNames(dir)
    .filter((n) => n.slice(0, n.indexOf("--")) >= from)
    .sort()
    .reverse()
    .slice(0, ACTED_LOOKED_AT);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  let newest: Acted | undefined;
  let sessions = 0;
  const done = new Set<string>();
  for (const name of names) {
    const entry = await readOne(dir, name, ws.position.worktree, false, handed);
    if (!entry.ok) continue;
    const m = entry.record.meta;
    const u = m.uptake as { handed?: unknown; state?: unknown; named?: unknown; acted_on?: unknown } | undefined;
    if (u?.handed !== handed || (u.state !== "acted" && u.state !== "partly")) continue;
    for (const n of strings(u.acted_on)) done.add(n);
    sessions++;
    // Names carry the second only: within it, the closing time by the millisecond says which is newest.
    if (newest && String(m.closed_at) <= newest.closed_at) continue;
    newest = {
      sessions: 0,
      session_id: String(m.session_id),
      provider: String(m.provider ?? "none"),
      closed_at: String(m.closed_at),
      state: "partly",
      named: strings(u.named),
      acted_on: [],
      record: entry.record.path,
      handovers: strings(m.handovers),
    };
  }
  if (!newest) return undefined;
  const actedOn = newest.named.filter((n) => done.has(n));
  return { ...newest, sessions, acted_on: actedOn, state: actedOn.length === newest.named.length ? "acted" : "partly" };
}
