/**
 * Which record is the last handover (or checkpoint) here: tier 0 this checkout's own, tier 1 another worktree's of the
 * same repository and branch; nothing from another branch or repository. The nearest tier wins; within it the newest by
 * (created_at, write sequence), except that an authored record of the same task beats a newer derived one, which is
 * named beside it as "since then". The handover that closed the last task counts as of no task while none is active.
 * Each folder's branch index names its newest and newest authored record; a bad index sends the reader to the folder.
 */
import { field } from "../lib/quote.ts";
import { join } from "node:path";
import { PAGE } from "../lib/page.ts";
import { loadLayer } from "../layer/manifest.ts";
import type { Layer } from "../layer/manifest.ts";
import { DETACHED, sameRepository, type Position } from "../repo/where.ts";
import { otherWorktrees } from "../repo/worktrees.ts";
import { trackedUnder } from "../repo/tracked.ts";
import type { RecordKind } from "./kinds.ts";
import { newer, readRecord, type Loaded, type Meta } from "./record.ts";
import { listNames, readIndex, storeOf, type IndexName, type Store } from "./store.ts";

export const TIERS = ["same_worktree_same_branch", "same_branch", "shared_from_another_checkout"] as const;
export type Tier = 0 | 1 | 2;

export type Resolved = Loaded & { tier: Tier; match: (typeof TIERS)[number] };

export type Verdict = {
  path: string;
  verdict: "selected" | "superseded" | "rejected";
  reason: string;
  tier?: Tier;
  created_at?: string;
  how?: string;
};

export type Place = Pick<
  Position,
  "repositoryId" | "repositoryAliases" | "commonDir" | "worktree" | "branch" | "git"
> & {
  tracked?: ReadonlySet<string>;
  closedBy?: { task_id: string; created_at: string };
};

export function tierOf(meta: Meta, place: Place, own: boolean): { tier: Tier } | { reason: string } {
  if (!sameRepository(meta.repository_id, place)) return { reason: `another repository (${meta.repository_id})` };
  if (meta.branch !== place.branch)
    return { reason: `another branch (${field(meta.branch)}; this checkout is on ${field(place.branch)})` };
  if (own) return { tier: 0 };
  if (place.branch === DETACHED) return { reason: "a detached checkout matches only records of its own worktree" };
  return { tier: 1 };
}

function newest(a: Resolved, b: Resolved | undefined): boolean {
  if (!b) return true;
  if (newer(a.meta, b.meta)) return true;
  if (newer(b.meta, a.meta)) return false;
  return a.path > b.path;
}

type Looked = { store: Store; own: boolean; tracked: ReadonlySet<string> };

const localOf = (layer: Layer) => join(layer.dir, layer.manifest.local.path);

async function storesFor(kind: RecordKind, layer: Layer, place: Place): Promise<Looked[]> {
  const own = place.tracked ?? (await trackedUnder(place.worktree, localOf(layer), place.git)).files;
  const stores: Looked[] = [{ store: storeOf(layer, kind), own: true, tracked: own }];
  for (const root of otherWorktrees(place)) {
    try {
      const theirs = await loadLayer(root);
      const tracked = await trackedUnder(root, localOf(theirs));
      stores.push({ store: storeOf(theirs, kind), own: false, tracked: tracked.files });
    } catch {}
  }
  return stores;
}

export const TRACKED_RECORD =
  "tracked by git in the private local half: a checkout can replace it, so it is not believed";

export type Resolution = {
  record?: Resolved;
  since?: Resolved;
  skipped: number;
};

type Best = { any?: Resolved; authored?: Resolved };

function consider(best: Best[], candidate: Resolved): void {
  const slot = (best[candidate.tier] ??= {});
  if (newest(candidate, slot.any)) slot.any = candidate;
  if (candidate.meta.how === "authored" && newest(candidate, slot.authored)) slot.authored = candidate;
}

function choose(best: Best[], place: Place): Pick<Resolution, "record" | "since"> {
  const slot = best.find((b) => b?.any !== undefined);
  if (!slot?.any) return {};
  const { any, authored } = slot;
  if (any.meta.how === "authored" || !authored) return { record: any };
  const closing = place.closedBy;
  const carried =
    any.meta.task_id === "none" &&
    closing !== undefined &&
    authored.meta.task_id === closing.task_id &&
    authored.meta.created_at === closing.created_at;
  if (authored.meta.task_id !== any.meta.task_id && !carried) return { record: any };
  return { record: authored, since: any };
}

async function candidate(
  kind: RecordKind,
  { store, own, tracked }: Looked,
  file: string,
  place: Place,
): Promise<Resolved | { bad: string } | undefined> {
  if (tracked.has(join(store.dir, file))) return { bad: TRACKED_RECORD };
  const parsed = await readRecord(kind, join(store.dir, file), file);
  if (!parsed.ok) return { bad: parsed.reason };
  const tier = tierOf(parsed.record.meta, place, own);
  return "tier" in tier ? { ...parsed.record, tier: tier.tier, match: TIERS[tier.tier] } : undefined;
}

async function fromIndex(
  kind: RecordKind,
  looked: Looked,
  place: Place,
  which: IndexName,
): Promise<Resolved | null | undefined> {
  // An index git tracks is a stranger's pointer: the folder is read instead.
  if (looked.tracked.size > 0) return undefined;
  const entry = readIndex(looked.store, place.branch, which);
  if (entry === null) return null;
  if (!entry) return undefined;
  const found = await candidate(kind, looked, entry.file, place);
  return found && !("bad" in found) ? found : undefined;
}

export async function resolveLatest(kind: RecordKind, layer: Layer, place: Place): Promise<Resolution> {
  let skipped = 0;
  const best: Best[] = [];
  for (const looked of await storesFor(kind, layer, place)) {
    const any = await fromIndex(kind, looked, place, "any");
    const authored = any
      ? any.meta.how === "authored"
        ? any
        : await fromIndex(kind, looked, place, "authored")
      : undefined;
    if (any && authored !== undefined) {
      consider(best, any);
      if (authored) consider(best, authored);
      continue;
    }
    for (const file of listNames(looked.store.dir)) {
      const found = await candidate(kind, looked, file, place);
      if (found && "bad" in found) skipped++;
      else if (found) consider(best, found);
    }
  }
  return { ...choose(best, place), skipped };
}

export type Explained = {
  record?: Resolved;
  since?: Resolved;
  candidates: Verdict[];
  omitted: { count: number; superseded: number; rejected: number };
};

/** Why `c` was selected, or why the selected `record` (with `since` beside it) won over it. */
function whyChosen(c: Resolved, record: Resolved, since: Resolved | undefined): string {
  const at = (r: Resolved) => `created ${r.meta.created_at}, sequence ${r.meta.seq}`;
  if (c === record) {
    if (!since) return `${TIERS[c.tier]}, newest in its tier (${at(c)})`;
    return since.meta.task_id === c.meta.task_id
      ? `${TIERS[c.tier]}, the newest authored record in its tier (${at(c)}); the derived records written after ` +
          `it for the same task do not replace the agent's own account`
      : `${TIERS[c.tier]}, the authored record that closed task ${c.meta.task_id} (${at(c)}); the derived ` +
          `records written since, with no task active, do not replace the agent's own account`;
  }
  if (c.tier !== record.tier)
    return `${TIERS[c.tier]} loses to a ${TIERS[record.tier]} record: the nearer tier wins outright`;
  if (since && c.meta.how === "derived" && newer(c.meta, record.meta) && c.meta.task_id === since.meta.task_id) {
    const shown = c === since ? "shown beside it as what happened since" : "an older one of those";
    return `derived after the selected authored record (created ${c.meta.created_at} seq ${c.meta.seq}); ${shown}`;
  }
  const theirs = `created ${c.meta.created_at} seq ${c.meta.seq}`;
  return `older than the selected record (${theirs} vs ${record.meta.created_at} seq ${record.meta.seq})`;
}

export async function explain(kind: RecordKind, layer: Layer, place: Place): Promise<Explained> {
  const eligible: Resolved[] = [];
  const verdicts: Verdict[] = [];
  const best: Best[] = [];
  for (const { store, own, tracked } of await storesFor(kind, layer, place)) {
    for (const file of listNames(store.dir)) {
      const path = join(store.dir, file);
      if (tracked.has(path)) {
        verdicts.push({ path, verdict: "rejected", reason: TRACKED_RECORD });
        continue;
      }
      const parsed = await readRecord(kind, path, file);
      if (!parsed.ok) {
        verdicts.push({ path, verdict: "rejected", reason: parsed.reason });
        continue;
      }
      const tier = tierOf(parsed.record.meta, place, own);
      if (!("tier" in tier)) {
        verdicts.push({
          path,
          verdict: "rejected",
          reason: tier.reason,
          created_at: parsed.record.meta.created_at,
          how: parsed.record.meta.how,
        });
        continue;
      }
      const c: Resolved = { ...parsed.record, tier: tier.tier, match: TIERS[tier.tier] };
      eligible.push(c);
      consider(best, c);
    }
  }
  const { record, since } = choose(best, place);
  for (const c of eligible) {
    const reason = whyChosen(c, record!, since);
    verdicts.push({
      path: c.path,
      verdict: c === record ? "selected" : "superseded",
      reason,
      tier: c.tier,
      created_at: c.meta.created_at,
      how: c.meta.how,
    });
  }
  return { record, since, ...shortlist(verdicts, since?.path) };
}

const LISTED = PAGE;

/**
 * The selected record, the one beside it and the newest others; the rest counted. Ten thousand records had made the
 * answer 3.4 MB.
 */
function shortlist(
  verdicts: Verdict[],
  sincePath: string | undefined,
): { candidates: Verdict[]; omitted: { count: number; superseded: number; rejected: number } } {
  const kept = (v: Verdict) => v.verdict === "selected" || v.path === sincePath;
  const at = (v: Verdict) => v.created_at ?? "";
  const others = verdicts.filter((v) => !kept(v)).sort((a, b) => (at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0));
  const shown = new Set(others.slice(0, LISTED));
  const left = others.slice(LISTED);
  return {
    candidates: verdicts.filter((v) => kept(v) || shown.has(v)),
    omitted: {
      count: left.length,
      superseded: left.filter((v) => v.verdict === "superseded").length,
      rejected: left.filter((v) => v.verdict === "rejected").length,
    },
  };
}
