// doctor learns a file's mode from the read that checks it (its fstat), or, for a file nobody reads
// that run, from one look when the privacy check asks: either way every exposed file is named, on
// a first run (every record read) and on a later one (records found good before are not read).
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { captured, fire, fixture } from "../support/capture.ts";

const START = fixture("SessionStart-startup.json");

describe("doctor's walk of the local half", () => {
  test("a record, a prompt, the ledger and a folder open to others are named on a first run and on a later one, as is a stale lock", () => {
    using repo = captured();
    fire(repo, "start", START);
    fire(repo, "prompt", { session_id: START.session_id, prompt_id: "p1", prompt: "hello" });
    fire(repo, "compact", { session_id: START.session_id, trigger: "auto" });
    const checkpoint = readdirSync(repo.path(".ai/local/state/checkpoints")).find(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    const prompt = readdirSync(repo.path(".ai/local/prompts"), { recursive: true }).find(
      (f) => typeof f === "string" && f.endsWith(".json"),
    );
    expect(checkpoint).toBeDefined();
    expect(prompt).toBeDefined();
    chmodSync(repo.path(`.ai/local/state/checkpoints/${checkpoint}`), 0o644);
    chmodSync(repo.path(`.ai/local/prompts/${prompt}`), 0o640);
    chmodSync(repo.path(".ai/local/state/ledger.jsonl"), 0o604);
    chmodSync(repo.path(".ai/local/state/handovers"), 0o755);
    // A lock whose holder (a pid no process has) is gone.
    writeFileSync(repo.path(".ai/local/state/sessions-open/gone.lock"), "999999999\n", { mode: 0o600 });
    const expected = [
      `FAIL privacy .ai/local/state/checkpoints/${checkpoint} — file mode 644; private files are 0600`,
      `FAIL privacy .ai/local/prompts/${prompt} — file mode 640; private files are 0600`,
      "FAIL privacy .ai/local/state/ledger.jsonl — file mode 604; private files are 0600",
      "FAIL privacy .ai/local/state/handovers — folder mode 755; private folders are 0700",
      "WARN locks .ai/local/state/sessions-open/gone.lock — stale: the process that took it (pid 999999999) is gone; the next writer breaks it",
    ];
    const first = repo.mj(["doctor"]);
    const later = repo.mj(["doctor"]);
    for (const run of [first, later]) {
      expect(run.status).toBe(10);
      for (const line of expected) expect(run.stdout).toContain(line);
      expect(run.stdout).not.toContain("folders 0700, files 0600");
    }
    // The later run took the records' verdicts from the first: it is the same report.
    expect(later.stdout).toBe(first.stdout);
  });
});

describe("doctor's verdicts", () => {
  test("a first run keeps one line per file it found good, from both threads, and a later run keeps the same", () => {
    using repo = captured();
    fire(repo, "start", START);
    for (const n of [1, 2, 3])
      fire(repo, "prompt", { session_id: START.session_id, prompt_id: `p${n}`, prompt: `hi ${n}` });
    fire(repo, "compact", { session_id: START.session_id, trigger: "auto" });
    fire(repo, "end", { ...fixture("SessionEnd-other.json"), session_id: START.session_id });
    const names = (dir: string, ext: string) =>
      readdirSync(repo.path(dir)).filter((f) => f.endsWith(ext) && f !== "README.md" && !f.startsWith("."));
    const files = [
      ...names(".ai/local/state/checkpoints", ".md"),
      ...names(".ai/local/state/handovers", ".md"),
      ...names(".ai/local/prompts", ".json"),
      ...names(".ai/repo/sessions", ".md"),
    ];
    expect(names(".ai/repo/sessions", ".md").length).toBe(1);
    expect(names(".ai/local/prompts", ".json").length).toBe(3);
    const first = repo.mj(["doctor"]);
    const cache = readFileSync(repo.path(".ai/local/cache/doctor-verdicts.tsv"), "utf8").split("\n");
    expect(cache[0]).toMatch(/^majordomus doctor verdicts v3 [0-9a-f]{16}$/);
    const lines = cache.slice(1);
    // One line a file: its name, its change key, and (a closed record) its episode.
    for (const line of lines) expect(line).toMatch(/^[^\t\n]+\t\d+:[\d.]+:\d+(\t[^\t]+)?$/);
    expect(lines.map((l) => l.split("\t")[0]).sort()).toEqual([...files].sort());
    const later = repo.mj(["doctor"]);
    expect(later.stdout).toBe(first.stdout);
    expect(readFileSync(repo.path(".ai/local/cache/doctor-verdicts.tsv"), "utf8").split("\n").slice(1).sort()).toEqual(
      [...lines].sort(),
    );
  });
});

describe("doctor's stranded episodes", () => {
  test("a layer holding more stranded episodes than a page shows the first page and says how many more", () => {
    using repo = captured();
    const then = { MAJORDOMUS_NOW: "2026-01-01T00:00:00Z" };
    for (let i = 0; i < 23; i++) fire(repo, "start", { ...START, session_id: `left-${i}` }, then);
    const run = repo.mj(["doctor"], { env: { MAJORDOMUS_NOW: "2026-01-03T00:00:00Z" } });
    expect(run.status).toBe(10);
    const lines = run.stdout.split("\n");
    expect(lines.filter((l) => l.includes("longer than session.stranded_after; it never closed"))).toHaveLength(20);
    expect(lines).toContain(
      "FAIL episodes stranded — 3 more episode(s) open longer than session.stranded_after  [reproduce: majordomus recover --check]",
    );
  });
});

describe("doctor's temp files", () => {
  test("a temp file a killed writer left in the local half's own folder is named by doctor and removed by doctor --fix", () => {
    using repo = captured();
    fire(repo, "start", START);
    // `init` writes the local half's README through a temp file beside it; a kill leaves that behind.
    const rel = ".ai/local/.README.md.999999999.0123abcd.tmp";
    writeFileSync(repo.path(rel), "half a README", { mode: 0o600 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(repo.path(rel), old, old);
    expect(repo.mj(["doctor"]).stdout).toContain(`WARN files ${rel} — a temp file a killed writer left behind`);
    const fixed = repo.mj(["doctor", "--fix"]);
    expect(fixed.stdout).toContain(`INFO fix ${rel} — a temp file a killed writer left; removed`);
    expect(existsSync(repo.path(rel))).toBe(false);
  });
});

describe("doctor --fix, a step over the findings", () => {
  test("only findings marked fixable are repaired; each repair is said, and the report after them no longer holds them", () => {
    using repo = captured();
    fire(repo, "start", START);
    const lock = ".ai/local/state/sessions-open/gone.lock";
    writeFileSync(repo.path(lock), "999999999\n", { mode: 0o600 });
    chmodSync(repo.path(".ai/local/state/ledger.jsonl"), 0o604);
    const json = repo.mj(["doctor", "--json"]);
    const items = (JSON.parse(json.stdout) as { items: Array<{ subject: string; fixable?: boolean }> }).items;
    expect(items.find((f) => f.subject === lock)?.fixable).toBe(true);
    expect(items.find((f) => f.subject === ".ai/local/state/ledger.jsonl")?.fixable).toBeUndefined();
    const fixed = repo.mj(["doctor", "--fix"]);
    const lines = fixed.stdout.split("\n");
    expect(lines[0]).toContain(`INFO fix ${lock} — a stale lock (its holder is gone); removed`);
    expect(existsSync(repo.path(lock))).toBe(false);
    expect(lines.filter((l) => l.includes(lock))).toHaveLength(1);
    // A mode is the person's to change: still said, not touched.
    expect(fixed.stdout).toContain("FAIL privacy .ai/local/state/ledger.jsonl — file mode 604");
    expect(fixed.status).toBe(10);
  });
});
