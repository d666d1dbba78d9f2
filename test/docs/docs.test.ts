// The README and docs/ are the adopter's manual. They stay true by being run: every `sh` example is
// executed with the compiled binary in a scratch repository, every command and option the command
// reference names is one the CLI has, every link lands on a file, and the README stays short.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { ENV } from "../../src/lib/env.ts";
import { BIN, PROJECT } from "../support/env.ts";
import { Repo, scratch, sh } from "../support/repo.ts";

const PAGES = [
  "README.md",
  ...readdirSync(join(PROJECT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(join(PROJECT, page), "utf8");

type Example = { page: string; line: number; code: string; skip?: string };

/** The page's fenced `sh` blocks; a block preceded by `<!-- not run: <reason> -->` is not run, and says why. */
function examples(page: string): Example[] {
  const lines = read(page).split("\n");
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (open[1] === "sh") {
      const before =
        lines
          .slice(0, i)
          .reverse()
          .find((l) => l.trim() !== "") ?? "";
      const skip = /^<!-- not run: (.+) -->$/.exec(before)?.[1];
      found.push({ page, line: i + 1, code: lines.slice(i + 1, end).join("\n"), ...(skip ? { skip } : {}) });
    }
    i = end;
  }
  return found;
}

/** Cells of a Markdown table row (`\|` inside a cell is a literal bar). */
const cells = (row: string) =>
  row
    .replace(/\\\|/g, "\u0000")
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim().replace(/\u0000/g, "|"));

/** A world for one example: `your-repo` is a git repository with one commit, HOME and temp are the test's. */
function world(): { root: string; repo: Repo } {
  const root = scratch("majordomus-docs-");
  const repo = new Repo(join(root, "your-repo"));
  sh(root, "mkdir", ["your-repo"]);
  repo.git("init", "-q", "-b", "main");
  repo.commit("the project", "src/index.ts", "export const hello = 1;\n");
  return { root, repo };
}

const ALL = PAGES.flatMap(examples);

describe("the docs", () => {
  test("the README leads: under 300 lines, and its first screen installs, wires and starts a client", () => {
    const lines = read("README.md").split("\n");
    expect(lines.length).toBeLessThan(300);
    const first = lines.slice(0, 45).join("\n");
    for (const step of [
      "install.sh",
      "majordomus init",
      "majordomus capture install",
      "start your client",
      "Next Action",
    ])
      expect(first, step).toContain(step);
  });

  test("every page in docs/ is linked from the README, and every relative link on every page lands on a file", () => {
    const readme = read("README.md");
    for (const page of PAGES.filter((p) => p.startsWith("docs/"))) expect(readme, page).toContain(`](${page})`);
    for (const page of PAGES) {
      for (const m of read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        expect(existsSync(join(PROJECT, dirname(page), target)), `${page} links ${target}`).toBe(true);
      }
    }
  });

  test("they name no internal issue numbers", () => {
    for (const page of PAGES) expect(read(page).match(/.{0,40}\bissues? #?\d+.{0,20}/gi) ?? [], page).toEqual([]);
  });

  test("the command reference is one table naming every command, and each command and option it names is the CLI's", () => {
    const lines = read("docs/commands.md").split("\n");
    const start = lines.indexOf("| command | what it does |");
    expect(start).toBeGreaterThan(0);
    const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
    const rows = lines.slice(start + 2, end);
    for (const name of Object.keys(COMMANDS))
      expect(
        rows.some((row) => row.includes(`\`majordomus ${name}`)),
        name,
      ).toBe(true);
    let checked = 0;
    for (const row of rows) {
      // `majordomus a b [--x]` / `c [--y]` / `--z`: bare words replace as many words at the end of the path, an option keeps it.
      const forms = [...cells(row)[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      let path: string[] = [];
      for (const form of forms) {
        const words = form.replace(/^majordomus\s*/, "").split(/\s+/);
        const head = words.filter(
          (w, i) => /^[a-z][a-z-]*$/.test(w) && words.slice(0, i).every((p) => /^[a-z][a-z-]*$/.test(p)),
        );
        if (form.startsWith("majordomus")) path = head;
        else if (head.length > 0) path = [...path.slice(0, -head.length), ...head];
        const options = [...form.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1]!);
        const help = sh(PROJECT, BIN, [...path, "--help"]);
        expect(help.status, `majordomus ${path.join(" ")} --help`).toBe(0);
        for (const option of options) expect(help.stdout, `majordomus ${path.join(" ")} ${option}`).toContain(option);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(Object.keys(COMMANDS).length);
  });

  test("docs/commands.md names every environment variable the code reads (src/lib/env.ts's table)", () => {
    const section = read("docs/commands.md").split("## Environment")[1]!;
    for (const name of Object.keys(ENV)) expect(section, name).toContain(`\`${name}`);
    const documented = [...section.matchAll(/^\| `(MAJORDOMUS_[A-Z_]+)/gm)].map((m) => m[1]!);
    expect(documented.sort()).toEqual(
      Object.keys(ENV)
        .filter((n) => n.startsWith("MAJORDOMUS_"))
        .sort(),
    );
  });

  test("every JSON kind docs/schemas.md lists has its schema in share/schemas/cli", () => {
    const kinds = [...read("docs/schemas.md").matchAll(/^\| (`[a-z-]+`(?:, `[a-z-]+`)*) \|/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/`([a-z-]+)`/g)].map((k) => k[1]!),
    );
    expect(kinds.length).toBeGreaterThanOrEqual(20);
    for (const kind of kinds)
      expect(existsSync(join(PROJECT, "share", "schemas", "cli", `${kind}.schema.json`)), kind).toBe(true);
  });

  test("an example not run says why, and most are run", () => {
    const skipped = ALL.filter((e) => e.skip);
    for (const e of skipped) expect(e.skip!.length, `${e.page}:${e.line}`).toBeGreaterThan(10);
    console.log(
      `docs examples: ${ALL.length - skipped.length} run, ${skipped.length} not run (${skipped.map((e) => `${e.page}:${e.line}: ${e.skip}`).join("; ")})`,
    );
    expect(ALL.length - skipped.length).toBeGreaterThan(skipped.length);
  });

  for (const example of ALL.filter((e) => !e.skip)) {
    test(`${example.page}:${example.line} runs as written`, () => {
      const { root, repo } = world();
      try {
        // A block that does not go into the repository itself runs in one that is already supervised.
        const inRepo = !/^cd your-repo\b/.test(example.code.trim());
        if (inRepo) {
          expect(repo.mj(["init"]).status).toBe(0);
          repo.git("add", ".ai", ".gitignore");
          repo.git("commit", "-q", "-m", "Add the majordomus layer");
        }
        const run = sh(inRepo ? repo.dir : root, "bash", ["-euo", "pipefail", "-c", example.code], undefined, {
          PATH: `${dirname(BIN)}:${process.env.PATH}`,
        });
        expect(
          run.status,
          `${example.page}:${example.line}\n${example.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`,
        ).toBe(0);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }, 300_000);
  }
});
