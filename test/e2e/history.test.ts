// `majordomus history` through the compiled binary.
import { describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Repo } from "../support/repo.ts";

const LEDGER = ".ai/local/state/ledger.jsonl";

/** A layered repository whose ledger holds `n` more init lines, stamped a minute apart from `start`. */
function withEntries(n: number, start = "2026-11-01T00:00:00Z"): Repo {
  const repo = Repo.init();
  if (repo.mj(["init"], { env: { MAJORDOMUS_NOW: "2026-10-01T00:00:00Z" } }).status !== 0)
    throw new Error("init failed");
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.parse(start) + i * 60_000).toISOString();
    expect(repo.mj(["init", "--extend"], { env: { MAJORDOMUS_NOW: at } }).status).toBe(0);
  }
  return repo;
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

/** The entries of one `history --json` document. */
const items = (stdout: string): unknown[] => JSON.parse(stdout).items;

describe("majordomus history", () => {
  test("newest N, printed oldest first; --json gives them as one document, each line's entry as written", () => {
    using repo = withEntries(4);
    const run = repo.mj(["history", "--limit", "2", "--json"]);
    expect(run.status).toBe(0);
    const ledger = lines(readFileSync(repo.path(LEDGER), "utf8"));
    expect(items(run.stdout)).toEqual(ledger.slice(-2).map((l) => JSON.parse(l)));
    const human = repo.mj(["history", "--limit", "2"]);
    expect(lines(human.stdout).map((l) => l.split("  ")[0])).toEqual([
      "2026-11-01T00:02:00.000Z",
      "2026-11-01T00:03:00.000Z",
    ]);
  });

  test("--event filters, an unknown event is a usage error listing the known ones", () => {
    using repo = withEntries(2);
    const run = repo.mj(["history", "--event", "layer.initialized", "--json"]);
    expect(items(run.stdout).length).toBe(3);
    const bad = repo.mj(["history", "--event", "nope"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown event "nope"');
    expect(bad.stderr).toContain("layer.initialized");
  });

  test("--since takes durations and ISO times", () => {
    using repo = withEntries(5);
    const env = { MAJORDOMUS_NOW: "2026-11-01T00:04:30Z" };
    expect(items(repo.mj(["history", "--since", "2m", "--json"], { env }).stdout).length).toBe(2);
    expect(items(repo.mj(["history", "--since", "2026-11-01T00:01:00Z", "--json"], { env }).stdout).length).toBe(4);
    const bad = repo.mj(["history", "--since", "recently"], { env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--since must be a duration");
  });

  test("usage errors exit 2: unknown option, bad --limit, clashing modes", () => {
    using repo = withEntries(0);
    for (const args of [
      ["history", "--lmit", "3"],
      ["history", "--limit", "x"],
      ["history", "--validate", "--rotate"],
      ["history", "--validate", "--limit", "3"],
      ["nonsense"],
    ]) {
      const run = repo.mj(args);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toStartWith("majordomus: ");
    }
  });

  test("--validate passes a clean ledger and fails (10) on malformed lines and unknown events", () => {
    using repo = withEntries(1);
    const ok = repo.mj(["history", "--validate"]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("OK ledger");
    appendFileSync(
      repo.path(LEDGER),
      'not json\n{"ts":"2026-11-01T00:00:00Z","event":"made.up","head":"NONE","branch":"main","by":"x"}\n{"ts":"2026-11-01T00:00:00Z","event":"layer.initialized","head":"NONE","branch":"main","by":"x","event":"again"}\n',
    );
    const bad = repo.mj(["history", "--validate"]);
    expect(bad.status).toBe(10);
    expect(bad.stdout).toContain(":3 — malformed: not valid JSON");
    expect(bad.stdout).toContain(':4 — unknown event "made.up"');
    expect(bad.stdout).toContain(':5 — malformed: key "event" appears twice');
    // Readers skip what they cannot trust and say so.
    const read = repo.mj(["history", "--json"]);
    expect(read.status).toBe(0);
    expect(items(read.stdout).length).toBe(3);
    expect(JSON.parse(read.stdout).skipped_malformed).toBe(2);
    expect(read.stderr).toContain("skipped 2 malformed");
  });

  test("--rotate keeps the newest retention_max_lines and archives the rest, deleting nothing", () => {
    using repo = withEntries(9);
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(policy, readFileSync(policy, "utf8").replace("retention_max_lines: 5000", "retention_max_lines: 4"));
    const before = lines(readFileSync(repo.path(LEDGER), "utf8"));
    const run = repo.mj(["history", "--rotate", "--json"], { env: { MAJORDOMUS_NOW: "2026-11-02T00:00:00Z" } });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ rotated: true, archived: 7, kept: 3 });
    const archives = readdirSync(repo.path(".ai/local/state")).filter((f) => f.endsWith(".archived.jsonl"));
    expect(archives).toEqual(["ledger.20261102T000000Z-01.archived.jsonl"]);
    const archived = lines(readFileSync(repo.path(".ai/local/state", archives[0]!), "utf8"));
    const after = lines(readFileSync(repo.path(LEDGER), "utf8"));
    expect([...archived, ...after.slice(0, -1)]).toEqual(before);
    expect(after.length).toBe(4);
    expect(JSON.parse(after.at(-1)!)).toMatchObject({
      event: "ledger.rotated",
      archived: 7,
      kept: 3,
      archive: archives[0],
    });
    // Under the cap: nothing happens.
    const again = repo.mj(["history", "--rotate"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("nothing to rotate");
  });

  test("an empty or absent ledger prints nothing and succeeds", () => {
    using repo = withEntries(0);
    writeFileSync(repo.path(LEDGER), "");
    const run = repo.mj(["history"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
  });
});
