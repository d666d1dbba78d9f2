/**
 * Two independent judgements of a record, always side by side: divergence (its commit against git now) and freshness
 * (its age).
 */
import { wall, parseIsoTime } from "../lib/clock.ts";
import type { Policy } from "../policy/index.ts";
import { ancestry, type Need } from "../repo/history.ts";
import { isCommitId, NO_HEAD, type Position } from "../repo/where.ts";

export type Divergence = "exact" | "advanced" | "diverged" | "different_context" | "unknown";

export const DIVERGENCE_MEANING: Record<Divergence, string> = {
  exact: "written at this commit",
  advanced: "git has moved forward since; expect some of it done",
  diverged: "its commit is not in this history (reset or rebase); trust git, not the record",
  different_context: "written on another branch; not about this work",
  unknown: "git cannot place its commit; trust git",
};

/** Git failures are `unknown`, never `exact`. `need`: whether a later reader wants the commits' files. */
export async function divergence(
  recorded: { head: string; branch: string },
  now: Pick<Position, "head" | "branch" | "git">,
  need: Need = "files",
): Promise<Divergence> {
  if (recorded.branch !== now.branch) return "different_context";
  if (recorded.head === now.head) return "exact";
  if (recorded.head === NO_HEAD) return now.head === NO_HEAD ? "exact" : "advanced";
  if (now.head === NO_HEAD || !isCommitId(recorded.head)) return "unknown";
  const ancestor = await ancestry(now, recorded.head, need);
  return ancestor === undefined ? "unknown" : ancestor ? "advanced" : "diverged";
}

export type Freshness = "fresh" | "aging" | "stale" | "unknown" | "invalid";

export type FreshnessVerdict = { state: Freshness; ageMinutes?: number; reason: string };

const FRESHNESS_KEY = "session.freshness";

export function span(minutes: number): string {
  if (minutes < 90) return `${minutes}m`;
  if (minutes < 72 * 60) return `${Math.floor(minutes / 60)}h`;
  return `${Math.floor(minutes / (24 * 60))}d`;
}

/**
 * A record stamped after the command's instant but not after the wall clock was written while it ran: 0 minutes old,
 * never "future".
 */
export function ageMinutes(created: Date, at: Date): number | "future" {
  if (created.getTime() > Math.max(at.getTime(), wall().getTime())) return "future";
  return Math.max(0, Math.floor((at.getTime() - created.getTime()) / 60_000));
}

export function ago(at: Date, iso: string): string {
  const created = parseIsoTime(iso);
  if (!created) return "unknown age";
  const minutes = ageMinutes(created, at);
  if (minutes === "future") return "in the future";
  return minutes === 0 ? "just now" : `${span(minutes)} ago`;
}

export function freshness(createdAt: string | undefined, now: Date, policy: Policy | undefined): FreshnessVerdict {
  if (createdAt === undefined || createdAt.trim() === "")
    return { state: "unknown", reason: "the record carries no timestamp" };
  const created = parseIsoTime(createdAt);
  if (!created) return { state: "invalid", reason: `created_at ${JSON.stringify(createdAt)} is not an ISO time` };
  const age = ageMinutes(created, now);
  if (age === "future") {
    const ahead = Math.max(1, Math.ceil((created.getTime() - wall().getTime()) / 60_000));
    return { state: "invalid", reason: `created_at is ${span(ahead)} in the future` };
  }
  return judged(age, limits(policy));
}

function limits(policy: Policy | undefined): { fresh_minutes: number; stale_minutes: number } | undefined {
  return policy?.session?.freshness;
}

function judged(
  ageMinutes: number,
  limits: { fresh_minutes: number; stale_minutes: number } | undefined,
): FreshnessVerdict {
  if (!limits)
    return { state: "unknown", ageMinutes, reason: `${span(ageMinutes)} old; the policy declares no ${FRESHNESS_KEY}` };
  if (ageMinutes >= limits.stale_minutes) {
    return {
      state: "stale",
      ageMinutes,
      reason: `${span(ageMinutes)} old, at or past the ${span(limits.stale_minutes)} this repository calls stale`,
    };
  }
  if (ageMinutes >= limits.fresh_minutes) {
    return {
      state: "aging",
      ageMinutes,
      reason: `${span(ageMinutes)} old, past the ${span(limits.fresh_minutes)} this repository calls fresh`,
    };
  }
  return { state: "fresh", ageMinutes, reason: `${span(ageMinutes)} old` };
}

export function isHistory(verdict: FreshnessVerdict): boolean {
  return verdict.state === "stale" || verdict.state === "invalid";
}
