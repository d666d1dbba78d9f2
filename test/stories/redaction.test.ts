// A story through the real shims: an agent writes secrets into everything it can give majordomus
// (a handover, a checkpoint, a question, a decision, a task objective). None of them is stored,
// briefed, served or committed; each is marked `[redacted:<rule>]`, and the writer is told.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture } from "../support/capture.ts";
import { everyFile, ok } from "../support/layered.ts";
import { cases } from "../support/secrets.ts";
import { startServe } from "../support/serve.ts";
import { mcpAnswers } from "../support/mcp.ts";

const SECRETS = {
  github: "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  aws: "AKIA" + "QWERTYUIOPASDFGH",
  anthropic: "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyz012345",
  password: "Sup3r-S3cret-Pw",
  urlPassword: "hunter2hunter2",
};

describe("redaction at every write", () => {
  test("secrets an agent writes are kept nowhere: not in the records, the ledger, the briefing, context, the closed record or any tracked file", () => {
    using repo = captured();
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    const env = { CLAUDE_CODE_SESSION_ID: String(START.session_id) };
    const task = ok(repo.mj(["start", `rotate the deploy key ${SECRETS.github}`, "--scope", "src"], { env }));
    expect(task.stderr).toContain("secret(s) redacted from the task");
    ok(
      repo.mj(["checkpoint"], {
        env,
        input: `# Progress\nDB_PASSWORD=${SECRETS.password} works against postgres://app:${SECRETS.urlPassword}@db.internal/app\n`,
      }),
    );
    const handover = ok(
      repo.mj(["handover"], {
        env,
        input: `# Objective\nDeploy.\n\n# Current State\nThe key ${SECRETS.aws} is in use.\n\n# Next Action\nExport ANTHROPIC_API_KEY=${SECRETS.anthropic} and run the deploy.\n`,
      }),
    );
    expect(handover.stderr).toMatch(/secret\(s\) redacted from the handover before it was stored \([a-z-, ]+\)/);
    ok(repo.mj(["question", "add", `Is ${SECRETS.github} still valid?`], { env }));
    ok(repo.mj(["decision", "Use the vault", "--why", `the old one leaked: password=${SECRETS.password}`], { env }));
    const briefing = fire(repo, "start", { ...START, source: "resume" }).stdout;
    const context = ok(repo.mj(["context"])).stdout;
    const mcp = mcpAnswers(repo.dir, ["continuity", "handovers", "context"]);
    fire(repo, "end", { ...fixture("SessionEnd-other.json") });
    const places = [
      { path: "briefing", text: briefing },
      { path: "context", text: context },
      ...mcp.map((text, i) => ({ path: `mcp answer ${i + 1}`, text })),
      ...everyFile(repo.path(".ai")),
      ...repo
        .git("ls-files")
        .split("\n")
        .filter(Boolean)
        .map((f) => ({ path: f, text: readFileSync(repo.path(f), "utf8") })),
    ];
    const leaks = places.flatMap((p) =>
      Object.entries(SECRETS)
        .filter(([, v]) => p.text.includes(v))
        .map(([k]) => `${k} in ${p.path}`),
    );
    expect(leaks).toEqual([]);
    // The Next Action is still quoted, with the mark where the secret was.
    expect(briefing).toMatch(/> Export ANTHROPIC_API_KEY=\[redacted:[a-z-]+\] and run the deploy\./);
    const closed = readdirSync(repo.path(".ai/repo/sessions")).filter((f) => f.endsWith(".md") && f !== "README.md");
    expect(closed.length).toBe(1);
    expect(readFileSync(repo.path(".ai/repo/sessions", closed[0]!), "utf8")).toContain("[redacted:");
  });

  test("a record an earlier version kept unredacted is shown redacted by every reader", () => {
    using repo = captured();
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    ok(
      repo.mj(["handover", "--no-task"], {
        input:
          "# Objective\nDeploy.\n\n# Current State\nReady.\n\n# Next Action\nRun the deploy with TOKEN_PLACEHOLDER.\n",
      }),
    );
    // As an older majordomus wrote it: the secret in the file itself.
    const dir = repo.path(".ai/local/state/handovers");
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith(".md") && f !== "README.md")!,
    );
    writeFileSync(file, readFileSync(file, "utf8").replace("TOKEN_PLACEHOLDER", SECRETS.github));
    const shown = [
      fire(repo, "start", { ...START, source: "resume" }).stdout,
      ok(repo.mj(["context"])).stdout,
      ok(repo.mj(["handover", "--resolve", "--json"])).stdout,
    ];
    for (const text of shown) {
      expect(text).not.toContain(SECRETS.github);
      expect(text).toContain("[redacted:github-token]");
    }
  });

  test("every family of the secret corpus, written into a handover, a checkpoint, a question, a decision and a task, reaches no surface: briefing, context, the boot, MCP, HTTP, the page, any file of the layer, any tracked file, the closed record", async () => {
    using repo = captured();
    const policy = repo.path(".ai/repo/policy.yaml");
    writeFileSync(policy, readFileSync(policy, "utf8").replace(/^session:\n/m, "session:\n  fresh_window: true\n"));
    repo.git("commit", "-q", "-am", "Ask for the fresh window");
    writeFileSync(repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
    const START = fixture("SessionStart-startup.json");
    fire(repo, "start", START);
    const env = { CLAUDE_CODE_SESSION_ID: String(START.session_id) };
    const texts = cases.map(([, text]) => text.replace(/\n/g, " "));
    // One value per surface it is written through, so each writer is tested on every family.
    ok(repo.mj(["start", `ship the release; ${texts.slice(0, 10).join("; ")}`, "--scope", "src"], { env }));
    // A checkpoint holds at most 40 lines: the corpus in lines of three.
    const triples = Array.from({ length: Math.ceil(texts.length / 3) }, (_, i) =>
      texts.slice(i * 3, i * 3 + 3).join(" | "),
    );
    // Secrets are never most of what is kept (such a write is refused): each text carries as much prose.
    const prose = (text: string) =>
      "The release notes say which service reads which credential, and who rotates it. ".repeat(
        Math.ceil(text.length / 40),
      );
    ok(repo.mj(["checkpoint"], { env, input: `# Progress\n${triples.join("\n")}\n${prose(triples.join(""))}\n` }));
    for (const t of texts.slice(0, 12)) ok(repo.mj(["question", "add", t], { env }));
    ok(repo.mj(["decision", "Rotate every key", "--why", texts.slice(12, 30).join("; ")], { env }));
    ok(
      repo.mj(["handover"], {
        env,
        input: `# Objective\nShip.\n\n# Current State\n${texts.join("\n")}\n${prose(texts.join(""))}\n\n# Next Action\nRotate these first:\n${texts.slice(30, 60).join("\n")}\n${prose(texts.slice(30, 60).join(""))}\n`,
      }),
    );
    const briefing = fire(repo, "start", { ...START, source: "resume" }).stdout;
    const context = ok(repo.mj(["context", "--budget-lines", "2000", "--budget-chars", "200000"])).stdout;
    const boot = ok(
      repo.mj(["capture", "window", "--action", "boot", "--trigger", "auto", "--repo", repo.dir], { env }),
    ).stdout;
    const mcp = mcpAnswers(repo.dir, ["continuity", "handovers", "context"]);
    const served = await startServe(repo.dir);
    let http: string[] = [];
    try {
      http = await Promise.all(
        ["/api/v1/continuity", "/api/v1/handovers", "/api/v1/context", "/"].map(async (path) =>
          (await served.fetch(path)).text(),
        ),
      );
    } finally {
      served.child.kill();
    }
    fire(repo, "end", fixture("SessionEnd-other.json"));
    const places = [
      { path: "briefing", text: briefing },
      { path: "context", text: context },
      { path: "boot", text: boot },
      ...mcp.map((text, i) => ({ path: `mcp answer ${i + 1}`, text })),
      ...http.map((text, i) => ({ path: `http answer ${i + 1}`, text })),
      ...everyFile(repo.path(".ai")),
      ...repo
        .git("ls-files")
        .split("\n")
        .filter(Boolean)
        .map((f) => ({ path: f, text: readFileSync(repo.path(f), "utf8") })),
    ];
    // Every answer was a real one.
    expect(boot).toContain("[redacted:");
    for (const text of http) expect(text.length).toBeGreaterThan(200);
    const leaks = places.flatMap((p) =>
      cases
        .filter(([, , secret]) => p.text.includes(secret))
        .map(([family]) => `${family} in ${p.path.replace(repo.dir, "<repo>")}`),
    );
    console.log(`${cases.length} secrets through ${places.length} surfaces and files: ${leaks.length} found`);
    expect(leaks).toEqual([]);
    // The agent's Next Action is still quoted, each secret in it marked.
    expect(briefing).toContain("> Rotate these first:");
  }, 300_000);
});
