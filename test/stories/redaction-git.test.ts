// Texts copied from git pass the same gate as what an agent writes: a branch named after a token,
// files whose paths hold one and a commit subject quoting one reach no surface, the tracked closed
// record and the shared handover included. And the identifiers that once switched the name-and-value
// rule off let no password through any writer. Through the real shims and the compiled binary.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { captured, fire, fixture } from "../support/capture.ts";
import { everyFile, ok } from "../support/layered.ts";
import { cases } from "../support/secrets.ts";
import { startServe } from "../support/serve.ts";
import { mcpAnswers } from "../support/mcp.ts";
import { redactShapes } from "../../src/lib/redact.ts";

/**
 * The corpus's tokens that are known by their shape alone (a published prefix or format, nothing
 * beside them needed) and that a branch name and a file name can hold (a file name's part is at
 * most 255 bytes).
 */
const PREFIXED = cases.filter(
  ([, , secret]) =>
    (redactShapes(secret) as string) !== secret &&
    secret.length <= 200 &&
    /^[A-Za-z0-9_.-]+$/.test(secret) &&
    !secret.includes("..") &&
    spawnSync("git", ["check-ref-format", "--branch", `fix/${secret}`]).status === 0,
);

describe("texts copied from git are redacted", () => {
  test("a corpus of prefixed token shapes", () => {
    expect(PREFIXED.length).toBeGreaterThanOrEqual(27);
  });

  test("a branch named after each token, files named after them and a commit subject quoting them: no surface shows a token", async () => {
    using repo = captured();
    const secrets = PREFIXED.map(([, , s]) => s);
    // One branch holds every token, one to a component; each file holds one.
    repo.git("checkout", "-q", "-b", `fix/${secrets.join("/")}`);
    mkdirSync(repo.path("src/keys"), { recursive: true });
    secrets
      .slice(0, 10)
      .forEach((s, i) => writeFileSync(repo.path(`src/keys/k${i}-${s}.ts`), `export const k = ${i};\n`));
    repo.git("add", "src");
    repo.git("commit", "-q", "-m", `rotate ${secrets.slice(10, 20).join(" ")}`);
    secrets.slice(10).forEach((s, i) => writeFileSync(repo.path(`src/keys/u${i}-${s}.ts`), `export const u = ${i};\n`));
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    const env = { CLAUDE_CODE_SESSION_ID: String(START.session_id) };
    ok(repo.mj(["start", "rotate the keys", "--scope", "src"], { env }));
    ok(
      repo.mj(["handover"], {
        env,
        input: "# Objective\nRotate.\n\n# Current State\nHalf done.\n\n# Next Action\nRotate the rest in src/keys.\n",
      }),
    );
    ok(repo.mj(["handover", "--share"], { env }));
    const briefing = fire(repo, "start", { ...START, source: "resume" }).stdout;
    expect(briefing).toContain("Rotate the rest in src/keys.");
    const shown = [
      { path: "briefing", text: briefing },
      { path: "context", text: ok(repo.mj(["context", "--budget-lines", "2000", "--budget-chars", "200000"])).stdout },
      { path: "context --json", text: ok(repo.mj(["context", "--json"])).stdout },
      { path: "session list", text: ok(repo.mj(["session", "list"])).stdout },
      { path: "history", text: ok(repo.mj(["history"])).stdout },
      { path: "handover --resolve", text: ok(repo.mj(["handover", "--resolve", "--json"])).stdout },
      ...mcpAnswers(repo.dir, ["continuity", "handovers", "context"]).map((text, i) => ({ path: `mcp ${i}`, text })),
    ];
    const served = await startServe(repo.dir);
    try {
      for (const route of ["/api/v1/continuity", "/api/v1/handovers", "/api/v1/context", "/"])
        shown.push({ path: `http ${route}`, text: await (await served.fetch(route)).text() });
    } finally {
      served.child.kill();
    }
    fire(repo, "end", fixture("SessionEnd-other.json"));
    const closed = readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
    expect(closed.length).toBe(1);
    const record = readFileSync(repo.path(".ai/repo/sessions", closed[0]!), "utf8");
    // The record still names the branch and the files, redacted where the tokens were.
    expect(record).toMatch(/branch: "?fix\/\[redacted:/);
    expect(record).toContain("src/keys/");
    const places = [
      ...shown,
      { path: "closed record", text: record },
      ...everyFile(repo.path(".ai")).filter((f) => !f.path.includes("/prompts/")),
    ];
    const leaks = places.flatMap((p) =>
      PREFIXED.filter(([, , s]) => p.text.includes(s)).map(
        ([family]) => `${family} in ${p.path.replace(repo.dir, "<repo>")}`,
      ),
    );
    expect(leaks).toEqual([]);
    expect(readdirSync(repo.path(".ai/repo/sessions/shared")).length).toBeGreaterThan(0);
  });

  test("files the session itself commits, named after a token each: the closed record's changed files are redacted, every one", () => {
    using repo = captured();
    const secrets = PREFIXED.slice(0, 8).map(([, , s]) => s);
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    // Within the session: committed (git diff --name-only start..HEAD), not left in the working tree.
    mkdirSync(repo.path("src/keys"), { recursive: true });
    secrets.forEach((s, i) => writeFileSync(repo.path(`src/keys/c${i}-${s}.ts`), `export const c = ${i};\n`));
    repo.git("add", "src");
    repo.git("commit", "-q", "-m", "add the key files");
    fire(repo, "end", fixture("SessionEnd-other.json"));
    const closed = readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
    const record = readFileSync(repo.path(".ai/repo/sessions", closed[0]!), "utf8");
    expect(record.match(/src\/keys\/c\d-\[redacted:/g)?.length).toBe(secrets.length);
    const kept = secrets.filter((s) => everyFile(repo.path(".ai")).some((f) => f.text.includes(s)));
    expect(kept).toEqual([]);
  });
});

describe("an ordinary identifier before a secret, through every writer", () => {
  const WORDS = [
    "authenticationMiddlewareConfigurationOptions",
    "useDesignSystemThemeProviderContextValue",
    "PASSWORD_RESET_TOKEN_EXPIRATION_SECONDS_DEFAULT",
    "src/components/AuthenticationProviderWrapper.tsx",
    // generated: 30 to 120 letters, a keyword inside
    `${"configuration".repeat(3)}Token${"middleware".repeat(2)}`,
    `x${"providerwrapper".repeat(8)}secret`,
  ];
  test("a prompt, a task, a checkpoint, a handover, a question and a decision: the password is stored nowhere, shown nowhere", () => {
    using repo = captured();
    // A branch named with a secret word, as teams name them: no token in it, so nothing to take.
    repo.git("checkout", "-q", "-b", "feat/authTokenRefreshMiddlewareConfiguration");
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    const env = { CLAUDE_CODE_SESSION_ID: String(START.session_id) };
    const said = (n: number) => WORDS.map((w, i) => `${w} DB_PASSWORD=Pr0dDbP4ss${n}${i}x`).join("\n");
    fire(repo, "prompt", { session_id: START.session_id, prompt_id: "p-1", prompt: said(1) });
    ok(repo.mj(["start", `fix ${said(2).replace(/\n/g, "; ")}`, "--scope", "src"], { env }));
    const prose = "The release reads its settings from the environment, as the runbook says. ".repeat(12);
    ok(repo.mj(["checkpoint"], { env, input: `# Progress\n${said(3)}\n${prose}\n` }));
    ok(
      repo.mj(["handover"], {
        env,
        input: `# Objective\nShip.\n\n# Current State\n${said(4)}\n${prose}\n\n# Next Action\n${said(5)}\n${prose}\n`,
      }),
    );
    ok(repo.mj(["question", "add", said(6).replace(/\n/g, " ")], { env }));
    ok(repo.mj(["decision", "Keep settings in the vault", "--why", said(7).replace(/\n/g, " ")], { env }));
    const briefing = fire(repo, "start", { ...START, source: "resume" }).stdout;
    expect(briefing).toContain("DB_PASSWORD=[redacted:assignment]");
    const context = ok(repo.mj(["context", "--budget-lines", "2000", "--budget-chars", "200000"])).stdout;
    fire(repo, "end", fixture("SessionEnd-other.json"));
    const places = [
      { path: "briefing", text: briefing },
      { path: "context", text: context },
      ...everyFile(repo.path(".ai")),
    ];
    expect(places.filter((p) => p.text.includes("Pr0dDbP4ss")).map((p) => p.path.replace(repo.dir, "<repo>"))).toEqual(
      [],
    );
    // The prompt was archived, redacted.
    expect(places.some((p) => p.path.includes("/prompts/") && p.text.includes("DB_PASSWORD=[redacted:"))).toBe(true);
    // The closed record names the branch and its span whole: our own words are not taken for a value.
    const closed = readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
    const record = readFileSync(repo.path(".ai/repo/sessions", closed[0]!), "utf8");
    expect(record).toMatch(/On feat\/authTokenRefreshMiddlewareConfiguration, from [0-9a-f]{7} to [0-9a-f]{7};/);
    // Every identifier is kept as written: only the values went.
    for (const w of WORDS) expect(briefing + context).toContain(w);
  });
});
