// Which handover a checkout resolves to, across worktrees and branches, and how far to trust it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/env.ts";
import { scratch, sh } from "../support/repo.ts";
import { HANDOVER, layered, ok, records, closedRecords } from "../support/layered.ts";
import { captured, fire } from "../support/capture.ts";

const body = (next: string) => HANDOVER.replace("Write the parser tests.", next);

function resolveJson(cwd: string, env: Record<string, string> = {}) {
  const run = sh(cwd, BIN, ["handover", "--resolve", "--json"], undefined, env);
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

describe("handover resolution", () => {
  test("two worktrees, two branches: another branch is never offered; another worktree on this branch is tier 1", () => {
    using repo = layered();
    const other = join(scratch(), "wt");
    repo.git("worktree", "add", "-q", "-b", "feature", other);
    ok(sh(other, BIN, ["init", "--extend"]));

    // The main worktree writes on main; the other worktree writes on feature, later.
    ok(repo.mj(["handover"], { input: body("main's next step") }));
    ok(sh(other, BIN, ["handover"], body("feature's next step")));

    // From main: feature's newer record is not offered.
    const fromMain = resolveJson(repo.dir);
    expect(fromMain.record.match).toBe("same_worktree_same_branch");
    expect(fromMain.record.next_action).toEqual(["main's next step"]);
    const rejected = fromMain.candidates.find((c: { verdict: string }) => c.verdict === "rejected");
    expect(rejected.reason).toContain("another branch (feature");

    // main moves to another branch; the other worktree checks out main: the main worktree's record is tier 1 there.
    repo.git("switch", "-q", "-c", "elsewhere");
    sh(other, "git", ["switch", "-q", "main"]);
    const fromOther = resolveJson(other);
    expect(fromOther.record.tier).toBe(1);
    expect(fromOther.record.match).toBe("same_branch");
    expect(fromOther.record.next_action).toEqual(["main's next step"]);
    const human = ok(sh(other, BIN, ["handover", "--resolve"])).stdout;
    expect(human).toContain("Match: same_branch");
    expect(human).toContain("Git state: exact");
    expect(human).toContain("Freshness: fresh");

    // A tier-0 record, even an older one, beats any tier-1 record.
    const mine = ok(
      sh(other, BIN, ["handover"], body("other's own step"), { MAJORDOMUS_NOW: "2020-01-01T00:00:00Z" }),
    ).stdout.trim();
    const again = resolveJson(other);
    expect(again.record.path).toBe(mine);
    expect(again.record.tier).toBe(0);
    const lost = again.candidates.find(
      (c: { verdict: string; tier?: number }) => c.verdict === "superseded" && c.tier === 1,
    );
    expect(lost.reason).toContain("the nearer tier wins outright");
  });

  test("a detached checkout is offered only its own worktree's records", () => {
    using repo = layered();
    ok(repo.mj(["handover"], { input: body("on main") }));
    repo.git("checkout", "-q", "--detach");
    const run = ok(repo.mj(["handover", "--resolve"]));
    expect(run.stdout).toContain("No handover for this worktree and branch (DETACHED)");
  });

  test("two records written within the same second resolve to the later one, deterministically", () => {
    using repo = layered();
    const env = { MAJORDOMUS_NOW: "2026-11-30T10:00:00Z" };
    ok(repo.mj(["handover"], { input: body("first"), env }));
    const second = ok(repo.mj(["handover"], { input: body("second"), env })).stdout.trim();
    for (let i = 0; i < 3; i++) {
      const resolved = resolveJson(repo.dir, env);
      expect(resolved.record.path).toBe(second);
      expect(resolved.record.next_action).toEqual(["second"]);
    }
    const superseded = resolveJson(repo.dir, env).candidates.find(
      (c: { verdict: string }) => c.verdict === "superseded",
    );
    expect(superseded.reason).toContain("seq 1 vs 2026-11-30T10:00:00.000Z seq 2");
  });

  test("malformed and newer-schema records are skipped, counted and explained, never fatal", () => {
    using repo = layered();
    const good = ok(repo.mj(["handover"], { input: body("the good one") })).stdout.trim();
    const dir = repo.path(".ai/local/state/handovers");
    writeFileSync(join(dir, "29990101T000000000Z--000100--main--aaaaaaa.md"), "no front matter at all\n");
    writeFileSync(
      join(dir, "29990101T000000000Z--000101--main--bbbbbbb.md"),
      readFileSync(repo.path(good), "utf8").replace("schema: handover/v1", "schema: handover/v2"),
    );
    writeFileSync(
      join(dir, "29990101T000000000Z--000102--main--ccccccc.md"),
      readFileSync(repo.path(good), "utf8").replace("how: authored", "how: authored\ntranscript: hello"),
    );
    // Make the index point at a broken record, as if it had been damaged after it was written.
    const index = join(dir, ".index", "main");
    writeFileSync(
      index,
      JSON.stringify({
        file: "29990101T000000000Z--000100--main--aaaaaaa.md",
        created_at: "2999-01-01T00:00:00.000Z",
        seq: 100,
      }),
    );
    const run = ok(repo.mj(["handover", "--resolve"]));
    expect(run.stdout).toContain(`Handover: ${good}`);
    expect(run.stderr).toContain("skipped 3 malformed handover record(s)");
    const explained = resolveJson(repo.dir);
    const reasons = explained.candidates
      .filter((c: { verdict: string }) => c.verdict === "rejected")
      .map((c: { reason: string }) => c.reason);
    expect(reasons).toContain("no front matter (the file must open with a `---` block)");
    expect(reasons.some((r: string) => r.includes("handover/v2 is newer"))).toBe(true);
    expect(reasons.some((r: string) => r.includes("undeclared front matter key(s): transcript"))).toBe(true);
  });

  // The index names each branch's newest record and its newest authored one; a branch whose name
  // ends in ".authored" once shared a file with another branch's authored entry.
  test("a branch named main.authored keeps to its own index: main's authored record is found from the index, not by reading the folder", () => {
    using repo = captured();
    fire(repo, "start", { session_id: "cc-idx", source: "startup" });
    ok(
      repo.mj(["handover", "--no-task"], {
        input: body("main's own words"),
        env: { CLAUDE_CODE_SESSION_ID: "cc-idx" },
      }),
    );
    fire(repo, "end", { session_id: "cc-idx", reason: "other" });
    repo.git("checkout", "-q", "-b", "main.authored");
    ok(repo.mj(["handover", "--no-task"], { input: body("the other branch's words") }));
    repo.git("checkout", "-q", "main");
    // A malformed record is met only by a resolution that reads the folder.
    writeFileSync(
      repo.path(".ai/local/state/handovers/20260101T000000000Z--000900--main--aaaaaaa.md"),
      "no front matter\n",
    );
    const run = ok(repo.mj(["handover", "--resolve"]));
    expect(run.stdout).toContain("main's own words");
    expect(run.stdout).not.toContain("the other branch's words");
    expect(run.stderr).not.toContain("skipped");
    expect(resolveJson(repo.dir).since?.how).toBe("derived");

    // A layer whose authored entry still has the old name resolves from it too.
    const index = repo.path(".ai/local/state/handovers/.index");
    writeFileSync(join(index, "main.authored"), readFileSync(join(index, "main+authored")));
    rmSync(join(index, "main+authored"));
    rmSync(join(index, "main.authored+authored"), { force: true });
    const legacy = ok(repo.mj(["handover", "--resolve"]));
    expect(legacy.stdout).toContain("main's own words");
    expect(legacy.stderr).not.toContain("skipped");
  });

  test("a branch name longer than a file name (282 characters, as git allows): handovers are written and resolved, and a session closes", () => {
    using repo = captured();
    const long = `${"a".repeat(120)}/${"b".repeat(120)}/${"c".repeat(40)}`;
    repo.git("checkout", "-q", "-b", long);
    ok(repo.mj(["handover", "--no-task"], { input: body("the long branch's words") }));
    const resolved = ok(repo.mj(["handover", "--resolve"]));
    expect(resolved.stdout).toContain("the long branch's words");
    expect(resolved.stderr).not.toContain("skipped");
    fire(repo, "start", { session_id: "cc-long", source: "startup" });
    const end = fire(repo, "end", { session_id: "cc-long", reason: "other" });
    expect(end.status).toBe(0);
    expect(end.stderr).toBe("");
    expect(closedRecords(repo).length).toBe(1);
    // A sibling branch sharing the long prefix keeps its own entries.
    repo.git("checkout", "-q", "-b", `${long}x`);
    ok(repo.mj(["handover", "--no-task"], { input: body("the sibling's words") }));
    repo.git("checkout", "-q", long);
    expect(ok(repo.mj(["handover", "--resolve"])).stdout).not.toContain("the sibling's words");
  });

  test("without its index a folder is scanned, with the same answer", () => {
    using repo = layered();
    ok(repo.mj(["handover"], { input: body("one") }));
    const last = ok(repo.mj(["handover"], { input: body("two") })).stdout.trim();
    rmSync(repo.path(".ai/local/state/handovers/.index"), { recursive: true });
    // --path answers absolute, so it can be used from any folder; the write names the record from the root.
    expect(ok(repo.mj(["handover", "--resolve", "--path"])).stdout.trim()).toBe(repo.path(last));
    const sub = repo.path("deep", "er");
    mkdirSync(sub, { recursive: true });
    expect(
      readFileSync(ok(repo.mj(["handover", "--resolve", "--path"], { cwd: sub })).stdout.trim(), "utf8"),
    ).toContain("two");
  });

  test("a stale record is shown as history with its age, its Next Action withheld", () => {
    using repo = layered();
    ok(
      repo.mj(["handover"], { input: body("do the risky migration"), env: { MAJORDOMUS_NOW: "2026-11-01T00:00:00Z" } }),
    );
    const later = { MAJORDOMUS_NOW: "2026-11-03T00:00:00Z" }; // 2880 minutes later: stale
    const run = ok(repo.mj(["handover", "--resolve"], { env: later }));
    expect(run.stdout).toContain("Freshness: stale (48h old, at or past the 48h this repository calls stale)");
    expect(run.stdout).toContain("HISTORY:");
    expect(run.stdout).not.toContain("do the risky migration");
    const json = resolveJson(repo.dir, later);
    expect(json.record.next_action).toBeUndefined();
    expect(json.record.next_action_withheld).toContain("withheld");
    const fresh = resolveJson(repo.dir, { MAJORDOMUS_NOW: "2026-11-01T01:00:00Z" });
    expect(fresh.record.freshness).toBe("fresh");
    expect(fresh.record.next_action).toEqual(["do the risky migration"]);
  });

  test("labels side by side: advanced after a commit, diverged after a reset", () => {
    using repo = layered();
    repo.commit("base");
    ok(repo.mj(["handover"], { input: body("x") }));
    repo.commit("on top");
    expect(resolveJson(repo.dir).record).toMatchObject({ divergence: "advanced", freshness: "fresh" });
    repo.git("reset", "-q", "--hard", "HEAD~2");
    repo.commit("rewritten");
    const run = ok(repo.mj(["handover", "--resolve"]));
    expect(run.stdout).toContain("Git state: diverged");
    expect(run.stdout).toContain("WARNING: trust git");
  });

  test("--list shows every record of this checkout with both labels, other branches included", () => {
    using repo = layered();
    ok(repo.mj(["handover"], { input: body("main") }));
    repo.git("switch", "-q", "-c", "side");
    ok(repo.mj(["handover"], { input: body("side") }));
    const rows = JSON.parse(ok(repo.mj(["handover", "--list", "--json"])).stdout).items;
    expect(rows.map((r: { branch: string; divergence: string }) => [r.branch, r.divergence])).toEqual([
      ["side", "exact"],
      ["main", "different_context"],
    ]);
    expect(records(repo, "handovers").length).toBe(2);
  });

  test("--list pages: the newest 20, saying older ones exist, found by name without reading the rest; --limit 0 lists every one", () => {
    using repo = layered();
    for (let i = 0; i < 24; i++) ok(repo.mj(["checkpoint"], { input: `# Progress\nstep ${i}\n` }));
    const dir = repo.path(".ai/local/state/checkpoints");
    const names = records(repo, "checkpoints").sort();
    // A record renamed by hand cannot be placed by its name: it is read, and listed where its own time puts it.
    const renamed = names[0]!;
    writeFileSync(join(dir, "kept-by-hand.md"), readFileSync(join(dir, renamed), "utf8"));
    rmSync(join(dir, renamed));
    // An old record that is not readable at all is never reached by a page, and is by the whole list.
    writeFileSync(join(dir, names[1]!), "no front matter\n");
    const page = ok(repo.mj(["checkpoint", "--list"]));
    const shown = page.stdout.trim().split("\n");
    expect(shown.length).toBe(20);
    expect(shown[0]).toContain(names.at(-1)!);
    expect(shown.at(-1)).toContain(names.at(-20)!);
    expect(page.stderr).toContain("the newest 20 shown; older ones exist (`--limit 0` lists every one)");
    expect(page.stderr).not.toContain("no front matter");
    const three = JSON.parse(ok(repo.mj(["checkpoint", "--list", "--limit", "3", "--json"])).stdout);
    expect([three.items.map((r: { path: string }) => r.path.split("/").pop()), three.more]).toEqual([
      names.slice(-3).reverse(),
      true,
    ]);
    const every = ok(repo.mj(["checkpoint", "--list", "--limit", "0", "--json"]));
    const all = JSON.parse(every.stdout);
    expect([all.items.length, all.more, all.rejected.length]).toEqual([23, false, 1]);
    expect(all.items.at(-1).path).toEndWith("kept-by-hand.md");
    // Why the newest was chosen lists it and the newest 20 others; the rest are counted, not listed.
    const explained = JSON.parse(ok(repo.mj(["checkpoint", "--show", "--json"])).stdout);
    expect(explained.candidates.length).toBe(21);
    expect(explained.candidates.find((c: { verdict: string }) => c.verdict === "selected").path).toEndWith(
      names.at(-1)!,
    );
    expect(explained.omitted).toEqual({ count: 3, superseded: 2, rejected: 1 });
    expect(explained.candidates.some((c: { path: string }) => c.path.endsWith(names[2]!))).toBe(false);
    const usage = repo.mj(["checkpoint", "--show", "--limit", "3"]);
    expect([usage.status, usage.stderr]).toEqual([2, expect.stringContaining("--limit applies only to --list")]);
  });
});
