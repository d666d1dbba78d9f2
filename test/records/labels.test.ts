// Divergence and freshness, judged against a real repository and the skeleton policy's thresholds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ago, divergence, freshness, isHistory, span } from "../../src/records/labels.ts";
import { locate } from "../../src/repo/where.ts";
import type { Policy } from "../../src/policy/index.ts";
import { PROJECT } from "../support/env.ts";
import { Repo } from "../support/repo.ts";

const SKELETON = parse(readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8")) as Policy;
const FRESH = SKELETON.session!.freshness!.fresh_minutes;
const STALE = SKELETON.session!.freshness!.stale_minutes;

describe("divergence follows git through a record's life", () => {
  test("exact → advanced → diverged → different_context → unknown", async () => {
    using repo = Repo.init();
    repo.commit("base");
    const recorded = { head: repo.commit("recorded"), branch: "main" };
    const steps: Array<[string, () => void, string]> = [
      ["at the recorded commit", () => {}, "exact"],
      ["after a commit on top", () => repo.commit("later"), "advanced"],
      [
        "after a reset below it and a new commit",
        () => (repo.git("reset", "-q", "--hard", "HEAD~2"), repo.commit("rewritten")),
        "diverged",
      ],
      ["after switching branch", () => repo.git("switch", "-q", "-c", "other"), "different_context"],
    ];
    for (const [when, act, expected] of steps) {
      act();
      expect({ when, label: (await divergence(recorded, await locate(repo.dir))) as string }).toEqual({
        when,
        label: expected,
      });
    }
    repo.git("switch", "-q", "main");
    const missing = { head: "0123456789abcdef0123456789abcdef01234567", branch: "main" };
    expect(await divergence(missing, await locate(repo.dir))).toBe("unknown");
  });

  test("a rebase that rewrites the recorded commit makes it diverged", async () => {
    using repo = Repo.init();
    repo.commit("base");
    repo.git("switch", "-q", "-c", "feature");
    const recorded = { head: repo.commit("feature work", "f.txt"), branch: "feature" };
    repo.git("switch", "-q", "main");
    repo.commit("main moves", "m.txt");
    repo.git("switch", "-q", "feature");
    repo.git("rebase", "-q", "main");
    expect(await divergence(recorded, await locate(repo.dir))).toBe("diverged");
  });

  test("records made before the first commit", async () => {
    using repo = Repo.init();
    const empty = await locate(repo.dir);
    expect(await divergence({ head: "NONE", branch: "main" }, empty)).toBe("exact");
    repo.commit("first");
    expect(await divergence({ head: "NONE", branch: "main" }, await locate(repo.dir))).toBe("advanced");
  });
});

describe("freshness at and around the policy's thresholds", () => {
  const now = new Date("2026-11-30T12:00:00.000Z");
  const before = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
  // The wall clock reads the injected time too: "in the future" means later than the wall clock.
  beforeAll(() => void (process.env.MAJORDOMUS_NOW = now.toISOString()));
  afterAll(() => void delete process.env.MAJORDOMUS_NOW);
  test.each([
    [0, "fresh"],
    [FRESH - 1, "fresh"],
    [FRESH, "aging"],
    [FRESH + 1, "aging"],
    [STALE - 1, "aging"],
    [STALE, "stale"],
    [STALE + 1, "stale"],
  ])("%p minutes old is %p", (minutes, state) => {
    const verdict = freshness(before(minutes), now, SKELETON);
    expect(verdict.state as string).toBe(state as string);
    expect(verdict.ageMinutes).toBe(minutes);
    expect(verdict.reason).not.toBe("");
  });

  test.each([
    ["", "unknown", "no timestamp"],
    ["   ", "unknown", "no timestamp"],
    ["yesterday", "invalid", "not an ISO time"],
    ["2026-13-45T99:00:00Z", "invalid", "not an ISO time"],
    ["2026-11-30T13:00:00.000Z", "invalid", "in the future"],
  ])("%p is %p", (created, state, reason) => {
    const verdict = freshness(created, now, SKELETON);
    expect(verdict.state as string).toBe(state);
    expect(verdict.reason).toContain(reason);
  });

  test("one clock per command: a record stamped after the command's instant, but not after the wall clock, is 0 minutes old", () => {
    const instant = new Date(now.getTime() - 2_000);
    const written = new Date(now.getTime() - 1_998).toISOString();
    const verdict = freshness(written, instant, SKELETON);
    expect(verdict).toMatchObject({ state: "fresh", ageMinutes: 0 });
    expect(ago(instant, written)).toBe("just now");
    // Later than the wall clock is the only "in the future".
    expect(freshness(new Date(now.getTime() + 61_000).toISOString(), instant, SKELETON)).toMatchObject({
      state: "invalid",
      reason: "created_at is 2m in the future",
    });
  });

  test("thresholds missing from the policy: unknown, and the reason names the key", () => {
    const verdict = freshness(before(10), now, { schema: "policy/v1", session: {} });
    expect(verdict.state).toBe("unknown");
    expect(verdict.reason).toContain("session.freshness");
    expect(verdict.ageMinutes).toBe(10);
  });

  test("stale and invalid are history; fresh, aging and unknown are not", () => {
    expect(isHistory(freshness(before(STALE), now, SKELETON))).toBe(true);
    expect(isHistory(freshness("garbage", now, SKELETON))).toBe(true);
    expect(isHistory(freshness(before(FRESH), now, SKELETON))).toBe(false);
    expect(isHistory(freshness("", now, SKELETON))).toBe(false);
  });

  test.each([
    [5, "5m"],
    [89, "89m"],
    [90, "1h"],
    [71 * 60, "71h"],
    [72 * 60, "3d"],
  ])("%p minutes read as %p", (minutes, text) => {
    expect(span(minutes)).toBe(text);
  });

  test.each([
    [before(0), "just now"],
    [before(150), "2h ago"],
    ["2026-11-30T12:05:00.000Z", "in the future"],
    ["not a time", "unknown age"],
  ])("%p is shown as %p", (iso, text) => {
    expect(ago(now, iso)).toBe(text);
  });
});
