// Architecture rules, checked on the source text so a violation fails the build, not a review.
import { ENV } from "../../src/lib/env.ts";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { PROJECT } from "../support/env.ts";

const SRC = join(PROJECT, "src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith(".ts") ? [full] : [];
  });
}

const SOURCES = files(SRC).map((path) => ({ rel: relative(SRC, path), text: readFileSync(path, "utf8") }));
/** Source without comments, so prose about a rule does not count as breaking it. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

/**
 * The layer order, lowest first: a folder may import its own layer and the ones below, never one
 * above. Utilities; the embedded data; git; the layer's manifest; policy and providers; the ledger;
 * the stores (records, task, questions, decisions, episodes); the command's workspace; the facts
 * gathered from it; the views over the facts; the operations that write (lifecycle); the client
 * hooks: answering them (hooks) and installing them (wiring), neither importing the other; health checks; the read side (MCP, HTTP, the page); the CLI.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ["lib"],
  ["assets"],
  ["repo"],
  ["layer"],
  ["policy", "providers"],
  ["ledger"],
  ["records", "task", "questions", "decisions", "session", "transcript"],
  ["workspace"],
  ["facts"],
  ["views"],
  ["lifecycle"],
  ["hooks", "wiring"],
  ["health"],
  ["serve"],
  ["cli"],
];
const rankOf = (folder: string) => LAYERS.findIndex((l) => l.includes(folder));
const folderOf = (rel: string) => rel.split("/")[0]!;

/** Every relative import of a source file (static, dynamic and type-only), as a path under src/. */
function importsOf(f: { rel: string; text: string }): string[] {
  const out: string[] = [];
  for (const m of code(f.text).matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+)["']/g))
    out.push(join(dirname(f.rel), m[1]!));
  return out;
}

type Source = { rel: string; text: string };

/** Each circle of imports once, from its first module in name order (a depth-first walk over importsOf). */
function circles(sources: readonly Source[]): string[] {
  const edges = new Map(sources.map((f) => [f.rel, importsOf(f)]));
  const found = new Set<string>();
  const walk = (at: string, path: string[]): void => {
    for (const next of edges.get(at) ?? []) {
      const i = path.indexOf(next);
      if (i === 0) found.add([...path, next].join(" -> "));
      else if (i === -1 && next > path[0]!) walk(next, [...path, next]);
    }
  };
  for (const rel of [...edges.keys()].sort()) walk(rel, [rel]);
  return [...found];
}

/**
 * The quoting gate: a text view shows a field another writer chose (an author, a branch, an id, a
 * path, a task's words) only through lib/quote.ts, so it stays one quoted line. A template slot
 * that ends in such a field, unwrapped, is an offender. derived.ts writes a record's body, which
 * every surface quotes line by line; page.ts escapes every slot as HTML.
 */
const FOREIGN_FIELD =
  /\.(author|checkout|shared_at|provider|provider_session|worktree|branch|task|text|owner|title|why|opened_by|cited)\s*$/;
const OURS = new Set(["f.snapshot.why", "check.why", "tree.why", "s.title", "whole.text", "d.task", "p.worktree"]);
function quotingOffenders(sources: readonly Source[]): string[] {
  return sources
    .filter((f) => f.rel.startsWith("views/") && f.rel !== "views/derived.ts" && f.rel !== "views/page.ts")
    .flatMap((f) =>
      [...code(f.text).matchAll(/\$\{([^{}]*)\}/g)]
        .filter((m) => FOREIGN_FIELD.test(m[1]!) && !OURS.has(m[1]!.trim()))
        .map((m) => `${f.rel}: \${${m[1]}}`),
    );
}

/**
 * The budget gate: what a client is handed is fitted by views/budget.ts alone (the Next Action
 * first); no other module cuts text to a budget itself, and the client-facing views spend it.
 */
function budgetOffenders(sources: readonly Source[]): string[] {
  const cutters = sources
    .filter((f) => f.rel !== "views/budget.ts" && f.rel !== "lib/fit.ts" && /\bheadThatFits\b/.test(code(f.text)))
    .map((f) => `${f.rel}: cuts text itself (headThatFits)`);
  const spenders = ["views/briefing.ts", "views/boot.ts", "views/context.ts", "hooks/prompt.ts"]
    .filter((rel) => !/\bspend\(/.test(code(sources.find((f) => f.rel === rel)?.text ?? "")))
    .map((rel) => `${rel}: does not spend the one budget`);
  return [...cutters, ...spenders];
}

/**
 * The redaction gate: a person's or a stranger's text enters a record only as `Clean`, a type that
 * lib/redact.ts alone makes, and each store's writer takes it so (tsc then refuses any other way
 * in). A brand cast elsewhere, or a writer that takes a plain string, is an offender.
 */
const GATED: ReadonlyArray<readonly [file: string, declared: string, param: string]> = [
  ["records/store.ts", "function publish", "body"],
  ["questions/store.ts", "function addQuestion", "question"],
  ["questions/store.ts", "function resolveQuestion", "answer"],
  ["decisions/store.ts", "function appendDecision", "title"],
  ["decisions/store.ts", "function appendDecision", "why"],
  ["records/shared.ts", "function renderShared", "author"],
  ["records/shared.ts", "function renderShared", "body"],
  ["views/session-record.ts", "function renderRecord", "body"],
  ["task/record.ts", "type Task =", "task"],
  ["repo/where.ts", "type Position =", "branch"],
  // File names from git, the working tree's and the session's commits', as the closed record keeps them.
  ["repo/status.ts", "type Snapshot =", "changed"],
  ["facts/episode.ts", "type EpisodeWindow =", "files"],
];
function gateOffenders(sources: readonly Source[]): string[] {
  const casts = sources
    .filter((f) => f.rel !== "lib/redact.ts" && /\bas\s+(?:unknown\s+as\s+)?Clean\b/.test(code(f.text)))
    .map((f) => `${f.rel}: makes a Clean text itself`);
  const writers = GATED.filter(([rel, declared, param]) => {
    const text = code(sources.find((f) => f.rel === rel)?.text ?? "");
    const at = text.search(new RegExp(`export (?:async )?${declared}`));
    // A signature ends at its body's brace; a type at its closing line.
    const end = declared.startsWith("type") ? text.indexOf("\n};", at) : text.indexOf(" {\n", at);
    return at === -1 || !new RegExp(`\\b${param}\\??:\\s*Clean\\b`).test(text.slice(at, end));
  }).map(([rel, declared, param]) => `${rel}: ${declared} takes ${param} unredacted`);
  return [...casts, ...writers];
}

/**
 * The safe open: a file is opened to read only through lib/safe-read.ts (openRegular and the readers
 * over it: no link followed, no FIFO waited on, a regular file only). Another module's openSync
 * that does not create a file (a read open) is an offender; opening a lock with O_EXCL is not a read.
 */
/** Modules that read whole files none of which is a layer file, and what they read. */
const WHOLE_FILE_READERS: Record<string, string> = {
  "assets/index.ts": "the binary's own embedded data, or the source checkout's",
  "cli/stdin.ts": "the hook payload on descriptor 0",
  "repo/where.ts": "git's HEAD and refs",
  "repo/worktrees.ts": "git's worktree pointers",
  "repo/identity.ts": "the repository id in git's common dir, after an lstat",
  "workspace/private.ts": "its memo in git's own folder",
  "lib/holder.ts": "/proc",
  "lib/fsx.ts": "readIfExists, for the client files install converges",
  "wiring/trust.ts": "the clients' own trust files in the person's home",
  "wiring/status.ts": "the client files install wrote, checked for links first (wiring/config.ts)",
  "wiring/backups.ts": "a backup of the person's client file, only a regular file inside the backups folder",
  "lifecycle/task.ts": "the note file the person names with --note",
  "lifecycle/commit.ts": "git's index, copied under git's own lock",
  "lifecycle/init.ts": "the person's .gitignore",
};

function openOffenders(sources: readonly Source[]): string[] {
  return sources
    .filter((f) => f.rel !== "lib/safe-read.ts")
    .flatMap((f) => [
      ...[...code(f.text).matchAll(/\bopenSync\(([^;]*?)\)(?:;|\n)/g)]
        .filter((m) => !/O_CREAT|["'][wa]x?\+?["']/.test(m[1]!))
        .map(() => `${f.rel}: opens a file to read itself`),
      ...(f.rel in WHOLE_FILE_READERS || !/\breadFileSync\(/.test(code(f.text))
        ? []
        : [`${f.rel}: reads a whole file itself`]),
    ]);
}

describe("architecture", () => {
  test("every folder of src/ has a place in the layer order", () => {
    const folders = [...new Set(SOURCES.filter((f) => f.rel.includes("/")).map((f) => folderOf(f.rel)))];
    expect(folders.filter((d) => rankOf(d) === -1)).toEqual([]);
  });

  test("no import reaches from a lower layer into a higher one", () => {
    const offenders = SOURCES.flatMap((f) => {
      if (!f.rel.includes("/")) return [];
      const from = rankOf(folderOf(f.rel));
      return importsOf(f)
        .filter((target) => rankOf(folderOf(target)) > from)
        .map((target) => `${f.rel} -> ${target}`);
    });
    expect(offenders).toEqual([]);
  });

  test("answering hooks and installing them stay apart: hooks/ and wiring/ never import each other", () => {
    const offenders = SOURCES.flatMap((f) => {
      const from = folderOf(f.rel);
      if (from !== "hooks" && from !== "wiring") return [];
      const other = from === "hooks" ? "wiring" : "hooks";
      return importsOf(f)
        .filter((t) => folderOf(t) === other)
        .map((t) => `${f.rel} -> ${t}`);
    });
    expect(SOURCES.some((f) => folderOf(f.rel) === "hooks")).toBe(true);
    expect(SOURCES.some((f) => folderOf(f.rel) === "wiring")).toBe(true);
    expect(offenders).toEqual([]);
  });

  test("no circle of imports: no module reaches itself through what it imports (a planted pair fails)", () => {
    expect(circles(SOURCES)).toEqual([]);
    const planted = [
      { rel: "wiring/a.ts", text: 'import { b } from "./b.ts";' },
      { rel: "wiring/b.ts", text: 'import type { A } from "./a.ts";' },
    ];
    expect(circles(planted)).toEqual(["wiring/a.ts -> wiring/b.ts -> wiring/a.ts"]);
  });

  test("views are pure: they touch no file, no process and no git, and gather nothing", () => {
    const IMPURE =
      /^(repo\/|ledger\/store|facts\/gather|lib\/(runtime|fsx|lock|stdin)|workspace\/|lifecycle\/|hooks\/|wiring\/)/;
    const views = SOURCES.filter((f) => f.rel.startsWith("views/"));
    expect(views.length).toBeGreaterThan(3);
    const offenders = views.flatMap((f) => [
      ...(/from\s+["']node:/.test(code(f.text)) ? [`${f.rel}: node:*`] : []),
      ...importsOf(f)
        .filter((t) => IMPURE.test(t))
        .map((t) => `${f.rel} -> ${t}`),
    ]);
    expect(offenders).toEqual([]);
  });

  test("every stranger's field a view shows goes through lib/quote.ts (a planted unquoted slot fails)", () => {
    expect(quotingOffenders(SOURCES)).toEqual([]);
    const planted = { rel: "views/x.ts", text: "export const x = (s: { author: string }) => `by ${s.author}`;" };
    expect(quotingOffenders([planted])).toEqual(["views/x.ts: ${s.author}"]);
    expect(quotingOffenders([{ ...planted, text: planted.text.replace("${s.author}", "${field(s.author)}") }])).toEqual(
      [],
    );
  });

  test("every answer a client is handed is fitted by the one budget (a planted cutter fails)", () => {
    expect(budgetOffenders(SOURCES)).toEqual([]);
    const planted = {
      rel: "views/new-part.ts",
      text: 'import { headThatFits } from "../lib/fit.ts";\nheadThatFits([], 1, "utf16");',
    };
    expect(budgetOffenders([...SOURCES, planted])).toEqual(["views/new-part.ts: cuts text itself (headThatFits)"]);
  });

  test("every text enters a record through the redaction gate (a planted cast or an ungated writer fails)", () => {
    expect(gateOffenders(SOURCES)).toEqual([]);
    const cast = {
      rel: "hooks/x.ts",
      text: 'import type { Clean } from "../lib/redact.ts";\nexport const x = (s: string) => s as Clean;',
    };
    expect(gateOffenders([...SOURCES, cast])).toEqual(["hooks/x.ts: makes a Clean text itself"]);
    const store = SOURCES.find((f) => f.rel === "questions/store.ts")!;
    const ungated = { ...store, text: store.text.replace("question: Clean", "question: string") };
    expect(gateOffenders([...SOURCES.filter((f) => f !== store), ungated])).toEqual([
      "questions/store.ts: function addQuestion takes question unredacted",
    ]);
    // The session's file names from git history, planted around the gate.
    const episode = SOURCES.find((f) => f.rel === "facts/episode.ts")!;
    const around = { ...episode, text: episode.text.replace(/files: Clean\[\]/, "files: string[]") };
    expect(gateOffenders([...SOURCES.filter((f) => f !== episode), around])).toEqual([
      "facts/episode.ts: type EpisodeWindow = takes files unredacted",
    ]);
  });

  test("a file is opened to read only through lib/safe-read.ts (a planted second copy fails)", () => {
    expect(openOffenders(SOURCES)).toEqual([]);
    const planted = {
      rel: "serve/x.ts",
      text: 'import { openSync, constants } from "node:fs";\nexport const fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW);\n',
    };
    expect(openOffenders([...SOURCES, planted])).toEqual(["serve/x.ts: opens a file to read itself"]);
    const whole = {
      rel: "policy/y.ts",
      text: 'import { readFileSync } from "node:fs";\nexport const t = readFileSync(p, "utf8");\n',
    };
    expect(openOffenders([...SOURCES, whole])).toEqual(["policy/y.ts: reads a whole file itself"]);
  });

  test("policy switches are read through switchOn, never as inline key checks", () => {
    const inline =
      /\.session\?\.(briefing_on_start|checkpoint_on_compact|handover_on_end|handover_on_fill|commit_record_on_end|push_record_on_end)\b/;
    expect(SOURCES.filter((f) => f.rel !== "policy/index.ts" && inline.test(code(f.text))).map((f) => f.rel)).toEqual(
      [],
    );
  });

  test("the domain never imports the CLI layer or citty", () => {
    // main.ts is the entry point that hands over to the CLI layer; it is not domain code.
    const offenders = SOURCES.filter(
      (f) => !f.rel.startsWith("cli/") && f.rel !== "main.ts" && /from\s+["'](citty|[./]+cli\/)/.test(code(f.text)),
    ).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("nothing calls process.exit; only main.ts and cli/run.ts decide exit codes", () => {
    expect(SOURCES.filter((f) => /process\.exit\s*\(/.test(code(f.text))).map((f) => f.rel)).toEqual([]);
    expect(SOURCES.filter((f) => /process\.exitCode\s*=/.test(code(f.text))).map((f) => f.rel)).toEqual(["main.ts"]);
  });

  test("stdout is written by the CLI layer alone (the domain returns data, never prints it)", () => {
    const offenders = SOURCES.filter(
      (f) => !f.rel.startsWith("cli/") && f.rel !== "main.ts" && /console\.log\(|process\.stdout/.test(code(f.text)),
    ).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("everything the CLI prints goes through cli/print.ts (control characters escaped)", () => {
    const offenders = SOURCES.filter(
      (f) =>
        f.rel.startsWith("cli/") &&
        f.rel !== "cli/print.ts" &&
        /console\.(log|error)\(|process\.(stdout|stderr)\.write/.test(code(f.text)),
    ).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("Bun-only APIs live in lib/runtime.ts alone", () => {
    const offenders = SOURCES.filter(
      (f) => f.rel !== "lib/runtime.ts" && /\bBun\.|["']bun:|globalThis\.Bun|\)\.Bun\b/.test(code(f.text)),
    ).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });

  test("the environment is read in lib/env.ts alone, and only the variables its table declares", () => {
    const offenders = SOURCES.filter(
      (f) => f.rel !== "lib/env.ts" && /process\.env\b|\bBun\.env\b/.test(code(f.text)),
    ).map((f) => f.rel);
    expect(offenders).toEqual([]);
    const asked = new Set(
      SOURCES.flatMap((f) => [...code(f.text).matchAll(/(?<![\w.])env\("([A-Za-z_]+)"\)/g)].map((m) => m[1]!)),
    );
    const declared = new Set(Object.keys(ENV));
    expect([...asked].filter((n) => !declared.has(n))).toEqual([]);
    // A row nobody reads is a variable the docs promise and the code ignores.
    expect([...declared].filter((n) => !asked.has(n))).toEqual([]);
  });

  test("the policy is read by the workspace alone (ws.policy(), once per command)", () => {
    const callers = SOURCES.filter((f) => /\bloadPolicy\s*\(/.test(code(f.text))).map((f) => f.rel);
    expect(callers.sort()).toEqual(["policy/index.ts", "workspace/workspace.ts"]);
  });

  test("the workspace has one name: every parameter that takes it (or the part of it the ledger takes) is `ws`", () => {
    const named = /\b([A-Za-z_$][\w$]*)\??\s*:\s*(?:Workspace|AppendContext|(?:Pick|Omit)<Workspace)\b(?!\[)/g;
    const offenders = SOURCES.flatMap((f) =>
      [...code(f.text).matchAll(named)].filter((m) => m[1] !== "ws").map((m) => `${f.rel}: ${m[1]}`),
    );
    expect(offenders).toEqual([]);
  });

  test("built-in modules are imported as node:*", () => {
    const bare = /from\s+["'](fs|path|os|crypto|child_process|util|url)(\/[a-z]+)?["']/;
    expect(SOURCES.filter((f) => bare.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  test("no policy threshold is repeated as a literal in src/", () => {
    // The freshness thresholds and the other distinctive policy numbers live in the policy only.
    const policy = readFileSync(join(PROJECT, "share/skeleton/repo/policy.yaml"), "utf8");
    const numbers = [...policy.matchAll(/:\s*(\d{3,})\s*$/gm)].map((m) => m[1]!);
    expect(numbers).toContain("720");
    expect(numbers).toContain("2880");
    const offenders: string[] = [];
    for (const f of SOURCES) {
      for (const n of numbers)
        if (new RegExp(`(?<![\\w.])${n}(?![\\w.])`).test(code(f.text))) offenders.push(`${f.rel}: ${n}`);
    }
    expect(offenders).toEqual([]);
  });

  test("every ledger event written in src/ is registered, and every registered event has a writer", () => {
    const registered = [
      ...readFileSync(join(PROJECT, "share/events.yaml"), "utf8").matchAll(/^ {2}([a-z_]+\.[a-z_.]+):\s*$/gm),
    ].map((m) => m[1]!);
    // Written directly, or through the record kinds table (`event: "…"`).
    const direct = /(?:appendEvent\((?:[^()"]|\([^()]*\))*?,|\bline\()\s*"([a-z_]+\.[a-z_.]+)"/g;
    const tabled = /\bevent:\s*"([a-z_]+\.[a-z_.]+)"/g;
    const written = new Set(
      SOURCES.flatMap((f) => [...code(f.text).matchAll(direct), ...code(f.text).matchAll(tabled)].map((m) => m[1]!)),
    );
    expect([...written].filter((e) => !registered.includes(e))).toEqual([]);
    expect(registered.filter((e) => !written.has(e))).toEqual([]);
  });

  test("the exit-code table is the documented vocabulary", async () => {
    const { EXIT } = await import("../../src/lib/failure.ts");
    expect(EXIT).toEqual({ ok: 0, usage: 2, contract: 10, drift: 11, missing: 12, internal: 13, refused: 15 });
  });
});
