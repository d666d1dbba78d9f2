/** A real repository with a commit and an initialised layer, driven through the compiled binary. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Repo, type Run } from "./repo.ts";

export function layered(): Repo {
  const repo = Repo.init();
  repo.commit("start");
  const init = repo.mj(["init"]);
  if (init.status !== 0) throw new Error(`init failed: ${init.stderr}`);
  // As an adopter would: the tracked half and the ignore line are committed.
  repo.git("add", ".ai", ".gitignore");
  repo.git("commit", "-q", "-m", "Add the majordomus layer");
  return repo;
}

export function ok(run: Run): Run {
  if (run.status !== 0) throw new Error(`exit ${run.status}: ${run.stderr}`);
  return run;
}

export const HANDOVER =
  "# Objective\nShip the thing.\n\n# Current State\nHalf done.\n\n# Next Action\nWrite the parser tests.\n";

export function ledger(repo: Repo): Array<Record<string, unknown>> {
  return readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

export function records(repo: Repo, kind: "handovers" | "checkpoints"): string[] {
  return readdirSync(repo.path(".ai/local/state", kind)).filter((f) => f.endsWith(".md") && f !== "README.md");
}

/** The Markdown records of a folder in the repository (its README aside), by file name: oldest first, as names start with the time. */
export function mdFiles(repo: Repo, dir: string): string[] {
  return readdirSync(repo.path(dir))
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .sort();
}

/** The closed session records' texts. */
export function closedTexts(repo: Repo): string[] {
  return mdFiles(repo, ".ai/repo/sessions").map((f) => readFileSync(repo.path(".ai/repo/sessions", f), "utf8"));
}

/** A scalar of a record's front matter, quoted or not. */
export const frontField = (record: string, key: string): string | undefined =>
  new RegExp(`\\n${key}: "?([^"\\n]*)"?\\n`).exec(record)?.[1];

/** The closed session records in `.ai/repo/sessions/`, by file name. */
export function closedRecords(repo: Repo): string[] {
  return readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
}

/** Every file under a folder, as text. */
export function everyFile(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, withFileTypes: false }).flatMap((name) => {
    const path = join(dir, String(name));
    return statSync(path).isFile() ? [{ path, text: readFileSync(path, "utf8") }] : [];
  });
}
