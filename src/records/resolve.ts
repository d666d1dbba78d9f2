/**
 * Which record is "the last handover" (or checkpoint) for this checkout.
 *
 *   tier 0: same repository, same worktree, same branch
 *   tier 1: same repository and branch, another worktree (never for a detached checkout)
 *
 * Nothing else is ever offered: a record from another branch is not about this work. Inside a
 * tier the newest wins by (created_at, write sequence). Each folder's branch index names its
 * newest record, so resolving reads a handful of files however long the history is; a folder
 * whose index is missing or points at a bad record is scanned instead.
 */
import { join } from "node:path";
import { loadLayer } from "../layer/manifest.ts";
import type { Here } from "../layer/here.ts";
import { DETACHED } from "../repo/where.ts";
import { otherWorktrees } from "../repo/worktrees.ts";
import type { RecordKind } from "./kinds.ts";
import { newer, readRecord, type Loaded, type Meta } from "./record.ts";
import { listNames, readIndex, storeOf, type Store } from "./store.ts";

export const TIERS = ["same_worktree_same_branch", "same_branch"] as const;
export type Tier = 0 | 1;

export type Resolved = Loaded & { tier: Tier; match: (typeof TIERS)[number] };

export type Verdict = { path: string; verdict: "selected" | "superseded" | "rejected"; reason: string; tier?: Tier; created_at?: string };

type Place = Pick<Here["position"], "repositoryId" | "worktree" | "branch">;

/** The tier a record earns here, or why it earns none. */
export function tierOf(meta: Meta, here: Place): { tier: Tier } | { reason: string } {
  if (meta.repository_id !== here.repositoryId) return { reason: `another repository (${meta.repository_id})` };
  if (meta.branch !== here.branch) return { reason: `another branch (${meta.branch}; this checkout is on ${here.branch})` };
  if (meta.worktree === here.worktree) return { tier: 0 };
  if (here.branch === DETACHED) return { reason: "a detached checkout matches only records of its own worktree" };
  return { tier: 1 };
}

function better(a: Resolved, b: Resolved | undefined): boolean {
  if (!b) return true;
  if (a.tier !== b.tier) return a.tier < b.tier;
  if (newer(a.meta, b.meta)) return true;
  if (newer(b.meta, a.meta)) return false;
  return a.path > b.path;
}

/** The stores to look in: this checkout's, then every other worktree's (through its own manifest). */
async function storesFor(kind: RecordKind, here: Here): Promise<Store[]> {
  const stores = [storeOf(here.layer, kind)];
  for (const root of otherWorktrees(here.position)) {
    try {
      stores.push(storeOf(await loadLayer(root), kind));
    } catch {
      // that worktree has no readable layer: it holds no records we could trust
    }
  }
  return stores;
}

export type Resolution = { record?: Resolved; skipped: number };

async function scan(store: Store, here: Place, best: Resolved | undefined, counts: { skipped: number }): Promise<Resolved | undefined> {
  for (const file of listNames(store.dir)) {
    const parsed = await readRecord(store.kind, join(store.dir, file), file);
    if (!parsed.ok) {
      counts.skipped++;
      continue;
    }
    const tier = tierOf(parsed.record.meta, here);
    if (!("tier" in tier)) continue;
    const candidate: Resolved = { ...parsed.record, tier: tier.tier, match: TIERS[tier.tier] };
    if (better(candidate, best)) best = candidate;
  }
  return best;
}

/** The record this checkout resolves to, if any; malformed records met on the way are counted. */
export async function resolveLatest(kind: RecordKind, here: Here): Promise<Resolution> {
  const place = { repositoryId: here.position.repositoryId, worktree: here.position.worktree, branch: here.position.branch };
  const counts = { skipped: 0 };
  let best: Resolved | undefined;
  for (const store of await storesFor(kind, here)) {
    const entry = readIndex(store, place.branch);
    const parsed = entry ? await readRecord(kind, join(store.dir, entry.file), entry.file) : undefined;
    const tier = parsed?.ok ? tierOf(parsed.record.meta, place) : undefined;
    if (parsed?.ok && tier && "tier" in tier) {
      const candidate: Resolved = { ...parsed.record, tier: tier.tier, match: TIERS[tier.tier] };
      if (better(candidate, best)) best = candidate;
      continue;
    }
    // No usable index entry: read the folder (its malformed records are counted there).
    best = await scan(store, place, best, counts);
  }
  return { record: best, skipped: counts.skipped };
}

/** Every candidate with its verdict and the reason: what `--resolve --json` explains. */
export async function explain(kind: RecordKind, here: Here): Promise<{ record?: Resolved; candidates: Verdict[] }> {
  const place = { repositoryId: here.position.repositoryId, worktree: here.position.worktree, branch: here.position.branch };
  const eligible: Resolved[] = [];
  const verdicts: Verdict[] = [];
  for (const store of await storesFor(kind, here)) {
    for (const file of listNames(store.dir)) {
      const path = join(store.dir, file);
      const parsed = await readRecord(kind, path, file);
      if (!parsed.ok) {
        verdicts.push({ path, verdict: "rejected", reason: parsed.reason });
        continue;
      }
      const tier = tierOf(parsed.record.meta, place);
      if (!("tier" in tier)) verdicts.push({ path, verdict: "rejected", reason: tier.reason, created_at: parsed.record.meta.created_at });
      else eligible.push({ ...parsed.record, tier: tier.tier, match: TIERS[tier.tier] });
    }
  }
  let best: Resolved | undefined;
  for (const candidate of eligible) if (better(candidate, best)) best = candidate;
  for (const c of eligible) {
    const reason =
      c === best
        ? `${TIERS[c.tier]}, newest in its tier (created ${c.meta.created_at}, sequence ${c.meta.seq})`
        : c.tier !== best!.tier
          ? `${TIERS[c.tier]} loses to a ${TIERS[best!.tier]} record: the nearer tier wins outright`
          : `older than the selected record (created ${c.meta.created_at} seq ${c.meta.seq} vs ${best!.meta.created_at} seq ${best!.meta.seq})`;
    verdicts.push({ path: c.path, verdict: c === best ? "selected" : "superseded", reason, tier: c.tier, created_at: c.meta.created_at });
  }
  return { record: best, candidates: verdicts };
}
