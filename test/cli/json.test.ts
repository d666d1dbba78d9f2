// `--json` as a script reads it: every command's answer is one JSON document on stdout, named by
// its `schema` and valid against share/schemas/cli/<kind>.schema.json; a failure with --json is one
// error document on stderr. Driven through the compiled binary in a real repository, across a task's
// life, so every documented shape is produced and checked (and a schema nobody produces fails).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validate, type Schema } from "../../src/lib/schema.ts";
import { PROJECT } from "../support/env.ts";
import { captured, fire } from "../support/capture.ts";
import { ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

const DIR = join(PROJECT, "share", "schemas", "cli");
const SCHEMAS = new Map(
  readdirSync(DIR).map((f) => [
    `majordomus/${f.replace(/\.schema\.json$/, "")}/v1`,
    JSON.parse(readFileSync(join(DIR, f), "utf8")) as Schema,
  ]),
);
const seen = new Set<string>();

function checked(text: string, where: string): Record<string, unknown> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not one JSON document: ${JSON.stringify(text.slice(0, 300))}`);
  }
  const schema = SCHEMAS.get(String(doc.schema));
  if (!schema) throw new Error(`${where}: schema ${JSON.stringify(doc.schema)} has no file in share/schemas/cli`);
  const problems = validate(schema, doc);
  if (problems.length > 0) throw new Error(`${where}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  seen.add(String(doc.schema));
  return doc;
}

/** Run with --json: the exit code it should have, and the document(s) checked. */
function json(repo: Repo, args: string[], exit = 0, input?: string): Record<string, unknown> {
  const run = repo.mj([...args, "--json"], { input });
  const where = `majordomus ${args.join(" ")} --json`;
  expect(run.status, `${where}: ${run.stderr}`).toBe(exit);
  if (exit !== 0) {
    const error = checked(run.stderr.trim(), `${where} (stderr)`);
    if (run.stdout.trim() === "") return error;
  }
  return checked(run.stdout.trim(), where);
}

describe("--json documents", () => {
  test("across a task's life, every command answers one document valid against its schema", () => {
    using repo = captured();
    fire(repo, "start", { session_id: "cc-json", source: "startup" });
    json(repo, ["init", "--extend"]);
    json(repo, ["policy"]);
    expect(json(repo, ["start", "make it configurable", "--scope", "src"]).task).toMatchObject({ scope: ["src"] });
    json(repo, ["question", "add", "which default?"]);
    const questions = json(repo, ["question", "list", "--all"]);
    expect((questions.items as Array<{ number: number }>)[0]!.number).toBe(1);
    json(repo, ["decision", "keep YAML", "--why", "people edit it"]);
    expect(json(repo, ["decision", "list"]).items).toEqual([
      expect.objectContaining({ title: "keep YAML", why: "people edit it" }),
    ]);
    json(repo, ["checkpoint", "--derive"]);
    json(repo, ["handover"], 0, "# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\nC.\n");
    expect(json(repo, ["handover", "--resolve"]).record).toMatchObject({ how: "authored" });
    expect(json(repo, ["handover", "--claims"])).toMatchObject({ claims: null });
    expect(json(repo, ["handover", "--share"]).path).toMatch(
      /^\.ai\/repo\/sessions\/shared\/main--c-[0-9a-f]{16}\.md$/,
    );
    expect(json(repo, ["handover", "--share", "--withdraw"]).path).toMatch(/^\.ai\/repo\/sessions\/shared\//);
    const listed = json(repo, ["handover", "--list"]) as { items: Array<{ path: string }> };
    const file = listed.items[0]!.path.split("/").at(-1)!;
    expect(json(repo, ["handover", "--show", file])).toMatchObject({
      kind: "handover",
      body: expect.stringContaining("# Next Action"),
    });
    json(repo, ["checkpoint", "--show"]);
    json(repo, ["checkpoint", "--list"]);
    json(repo, ["context"]);
    expect((json(repo, ["history", "--limit", "3"]).items as unknown[]).length).toBe(3);
    json(repo, ["history", "--validate"]);
    json(repo, ["session", "status"]);
    json(repo, ["session", "show", "cc-json"]);
    json(repo, ["session", "context", "cc-json"]);
    json(repo, ["check"], 10);
    json(repo, ["question", "resolve", "1", "--answer", "en-GB"]);
    json(repo, ["finish", "--outcome", "partial"]);
    fire(repo, "end", { session_id: "cc-json", reason: "prompt_input_exit" });
    expect((json(repo, ["session", "list", "--all"]).items as unknown[]).length).toBe(1);
    json(repo, ["session", "latest"]);
    expect(json(repo, ["report", "--last", "10"])).toMatchObject({ sessions: 1, handed: 0 });
    json(repo, ["session", "show", "cc-json"]);
    expect(json(repo, ["session", "context", "cc-json"])).toMatchObject({ open: false });
    json(repo, ["session", "start"]);
    expect(json(repo, ["session", "start", "--if-open", "keep"])).toMatchObject({ kept: true });
    json(repo, ["session", "close"]);
    json(repo, ["recover", "--check", "--older-than", "1h"]);
    json(repo, ["recover", "--older-than", "1h"]);
    json(repo, ["history", "--rotate"]);
    json(repo, ["doctor"]);
    // What the Claude Code mod asks: always one document, without --json.
    checked(
      ok(
        repo.mj(["capture", "window", "--action", "status"], { env: { CLAUDE_CODE_SESSION_ID: "cc-json" } }),
      ).stdout.trim(),
      "majordomus capture window --action status",
    );
    json(repo, ["capture", "status", "--no-verify"]);
    json(repo, ["capture", "files"]);
    json(repo, ["capture", "prune", "--dry-run"]);
    json(repo, ["capture", "install"]);
    json(repo, ["capture", "uninstall"]);
    expect(json(repo, ["recover", "--older-than", "5y"], 2)).toMatchObject({ error: { kind: "usage" } });
  }, 300_000);

  test("every schema in share/schemas/cli was produced by some command above", () => {
    expect([...SCHEMAS.keys()].filter((k) => !seen.has(k))).toEqual([]);
  });
});
