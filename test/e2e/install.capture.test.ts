// capture install and capture status through the compiled binary.
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { BIN, PROJECT } from "../support/env.ts";
import { scratch, sh } from "../support/repo.ts";
import { hookEnv, SHIMS } from "../support/capture.ts";
import { layered, ok } from "../support/layered.ts";

const MOD = ".claude/skills/majordomus-handover";

function statusOf(repo: ReturnType<typeof layered>, env = hookEnv()) {
  return JSON.parse(ok(repo.mj(["capture", "status", "--all", "--json"], { env })).stdout).items as Array<{
    provider: string;
    aspect: string;
    state: string;
    reason: string;
  }>;
}

describe("capture install", () => {
  test("writes five executable shims, the settings file and the mod; a second run says already present for everything", () => {
    using repo = layered();
    const first = ok(repo.mj(["capture", "install"]));
    for (const shim of Object.values(SHIMS)) {
      expect(readFileSync(repo.path(shim), "utf8")).toContain("Written by `majordomus capture install`");
      expect(readFileSync(repo.path(shim), "utf8")).not.toContain("CLAUDE_PROJECT_DIR");
      expect(first.stdout).toContain(`written          ${shim}`);
    }
    const settings = JSON.parse(readFileSync(repo.path(".claude/settings.json"), "utf8"));
    expect(Object.keys(settings.hooks)).toEqual([
      "UserPromptSubmit",
      "SessionStart",
      "PreCompact",
      "SessionEnd",
      "StopFailure",
    ]);
    expect(settings.hooks.SessionEnd[0].hooks[0]).toEqual({
      type: "command",
      command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/majordomus-session-end',
      timeout: 10,
    });
    expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).not.toContain("skills");
    expect(readdirSync(repo.path(MOD, "hooks")).sort()).toEqual(["hooks.json", "register.ts"]);
    expect(existsSync(repo.path(MOD, ".gitignore"))).toBe(true);
    expect(readFileSync(repo.path(MOD, "hooks/register.ts"), "utf8")).toBe(
      readFileSync(join(PROJECT, "mods/claude-code/majordomus-handover/hooks/register.ts"), "utf8"),
    );
    const second = ok(repo.mj(["capture", "install"]))
      .stdout.trim()
      .split("\n");
    expect(second.every((l) => l.startsWith("already present"))).toBe(true);
  });

  test("a settings file that is not ours stays byte-identical: the missing entries are printed, the exit is 15, and nothing at all is written", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"));
    const mine =
      '{\n  "model": "opus",\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "echo done" } ] } ]\n  }\n}\n';
    writeFileSync(repo.path(".claude/settings.json"), mine);
    const run = repo.mj(["capture", "install"]);
    expect(run.status).toBe(15);
    expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).toBe(mine);
    for (const event of ["UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd"])
      expect(run.stderr).toContain(`"${event}": [ {"hooks":[`);
    expect(run.stderr).toContain("--merge");
    expect(run.stderr).toContain("nothing was written");
    // All or nothing: no shim, no mod, no .mcp.json, no record of the binary: a half install never happens.
    for (const rel of [SHIMS.start, SHIMS.prompt, MOD, ".mcp.json", ".ai/local/state/binary"])
      expect(`${rel} ${existsSync(repo.path(rel))}`).toBe(`${rel} false`);
    expect(run.stdout).toContain("not written      (everything else)");
  });

  test("install --merge then uninstall within one second: the person's original comes back byte for byte, and every backup has its own name", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"));
    const mine =
      '{ "model": "opus",   "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "echo done" } ] } ] } }\n';
    const mcp = '{"mcpServers":{"other":{"command":"x"}}}';
    writeFileSync(repo.path(".claude/settings.json"), mine);
    writeFileSync(repo.path(".mcp.json"), mcp);
    const started = Date.now();
    ok(repo.mj(["capture", "install", "--provider", "claude-code", "--merge"]));
    ok(repo.mj(["capture", "uninstall", "--provider", "claude-code"]));
    ok(repo.mj(["capture", "install", "--provider", "claude-code", "--merge"]));
    ok(repo.mj(["capture", "uninstall", "--provider", "claude-code"]));
    expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).toBe(mine);
    expect(readFileSync(repo.path(".mcp.json"), "utf8")).toBe(mcp);
    const backups = readdirSync(repo.path(".ai/local/backups")).filter((f) => f !== "merges.json");
    expect(new Set(backups).size).toBe(backups.length);
    expect(backups.length).toBe(4);
    // Every backup holds the person's original, never a merged copy over it.
    for (const b of backups) expect([mine, mcp]).toContain(readFileSync(repo.path(".ai/local/backups", b), "utf8"));
    void started;
  });

  test("a configuration it cannot use (a folder, not JSON) stops it before it writes anything, saying which and what to do", () => {
    using repo = layered();
    for (const [rel, make] of [
      [".claude/settings.json", (path: string) => mkdirSync(path, { recursive: true })],
      [".mcp.json", (path: string) => mkdirSync(path, { recursive: true })],
      [".mcp.json", (path: string) => writeFileSync(path, "{ not json")],
    ] as const) {
      make(repo.path(rel));
      const run = repo.mj(["capture", "install"]);
      expect({ rel, status: run.status }).toEqual({ rel, status: 10 });
      expect(run.stderr).toContain(`${rel} is `);
      expect(run.stderr).toContain("nothing was changed in it");
      expect(run.stderr).not.toContain("bug");
      // No shim, no mod: nothing the client would half-run.
      expect(existsSync(repo.path(SHIMS.start))).toBe(false);
      expect(existsSync(repo.path(MOD))).toBe(false);
      rmSync(repo.path(rel), { recursive: true, force: true });
    }
  });

  test("--merge adds exactly the missing entries, keeps every other key and value, and keeps a backup", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"));
    const mine = {
      model: "opus",
      permissions: { allow: ["Bash(ls)"] },
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "echo done" }] }],
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo hi" }] }],
      },
    };
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify(mine));
    const run = ok(repo.mj(["capture", "install", "--merge"]));
    expect(run.stdout).toContain("merged");
    const merged = JSON.parse(readFileSync(repo.path(".claude/settings.json"), "utf8"));
    expect(merged.model).toBe("opus");
    expect(merged.permissions).toEqual(mine.permissions);
    expect(merged.hooks.Stop).toEqual(mine.hooks.Stop);
    expect(merged.hooks.SessionStart[0]).toEqual(mine.hooks.SessionStart[0]);
    expect(merged.hooks.SessionStart.length).toBe(2);
    // The backup is in the git-ignored local half, not where `git add .claude` would commit it.
    expect(readdirSync(repo.path(".claude")).filter((f) => f.includes("backup"))).toEqual([]);
    const backup = readdirSync(repo.path(".ai/local/backups")).find((f) => f.startsWith(".claude--settings.json."))!;
    expect(JSON.parse(readFileSync(repo.path(".ai/local/backups", backup), "utf8"))).toEqual(mine);
    expect(run.stdout).toContain(`backup at .ai/local/backups/${backup}`);
    repo.git("add", ".claude");
    expect(repo.git("status", "--porcelain", "--ignored", ".ai/local/backups")).toStartWith("!!");
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain("already present  .claude/settings.json");
  });

  test("--merge changes only the lines it adds: the person's indentation, order and lines stay as written, and uninstall gives the file back", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"));
    const mine =
      '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [{ "hooks": [{ "type": "command", "command": "echo done" }] }]\n    }\n}\n';
    writeFileSync(repo.path(".claude/settings.json"), mine);
    repo.git("add", ".claude/settings.json");
    repo.git("commit", "-q", "-m", "my settings");
    ok(repo.mj(["capture", "install", "--merge"]));
    const merged = readFileSync(repo.path(".claude/settings.json"), "utf8");
    // Every line of the person's is still there, in order; only the line ending the last event gains its comma.
    const [added, deleted] = repo.git("diff", "--numstat", ".claude/settings.json").split("\t").map(Number);
    expect(deleted).toBeLessThanOrEqual(1);
    expect(added).toBeGreaterThan(4);
    expect(merged).toContain('        "Stop": [{ "hooks": [{ "type": "command", "command": "echo done" }] }],\n');
    // Four spaces, as the person indents.
    expect(merged).toContain('\n        "SessionStart": [\n            {\n');
    ok(repo.mj(["capture", "uninstall"]));
    expect(readFileSync(repo.path(".claude/settings.json"), "utf8")).toBe(mine);
  });

  test("our entries an earlier majordomus wrote with an empty matcher lose it (Copilot refuses the whole file over one); the person's entries are untouched", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"]));
    const path = repo.path(".claude/settings.json");
    const now = JSON.parse(readFileSync(path, "utf8"));
    for (const list of Object.values(now.hooks) as Array<Array<Record<string, unknown>>>)
      for (const entry of list) entry.matcher = "";
    now.hooks.Stop = [{ matcher: "", hooks: [{ type: "command", command: "echo mine" }] }];
    writeFileSync(path, JSON.stringify(now, null, 2));
    const run = ok(repo.mj(["capture", "install"]));
    expect(run.stdout).toMatch(/^rewritten +\.claude\/settings\.json — our 5 hook entries lost their empty matcher/m);
    const after = JSON.parse(readFileSync(path, "utf8"));
    for (const [event, list] of Object.entries(after.hooks) as Array<[string, Array<Record<string, unknown>>]>)
      for (const entry of list) expect(`${event} ${"matcher" in entry}`).toBe(`${event} ${event === "Stop"}`);
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain("already present  .claude/settings.json");
  });

  test("the mod follows the policy switch both ways, is repaired when it drifts, and a folder not ours is never touched", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"]));
    writeFileSync(
      repo.path(MOD, "hooks/register.ts"),
      `${readFileSync(repo.path(MOD, "hooks/register.ts"), "utf8")}\n// edited by hand\n`,
    );
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`rewritten        ${MOD}`);
    // What the client lays beside a loaded mod does not count as drift.
    mkdirSync(repo.path(MOD, ".claude-plugin/types/claude-code"), { recursive: true });
    writeFileSync(repo.path(MOD, ".claude-plugin/types/claude-code/index.d.ts"), "export {};\n");
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`already present  ${MOD}`);

    const policy = repo.path(".ai/repo/policy.yaml");
    const original = readFileSync(policy, "utf8");
    writeFileSync(policy, original.replace("handover_on_fill: true", "handover_on_fill: false"));
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(
      `removed          ${MOD} — session.handover_on_fill is not true`,
    );
    expect(existsSync(repo.path(MOD))).toBe(false);
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`not written      ${MOD}`);
    writeFileSync(policy, original.replace(/\n  # Install the Claude Code mod[^\n]*\n  handover_on_fill: true/, ""));
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`not written      ${MOD}`);
    writeFileSync(policy, original);
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`written          ${MOD}`);

    rmSync(repo.path(MOD), { recursive: true });
    mkdirSync(repo.path(MOD, "hooks"), { recursive: true });
    writeFileSync(repo.path(MOD, "hooks/register.ts"), "// my own mod\n");
    writeFileSync(policy, original.replace("handover_on_fill: true", "handover_on_fill: false"));
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`left alone       ${MOD}`);
    expect(readFileSync(repo.path(MOD, "hooks/register.ts"), "utf8")).toBe("// my own mod\n");
  });

  test("a shim that is not ours is left alone", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude/hooks"), { recursive: true });
    writeFileSync(repo.path(SHIMS.start), "#!/bin/sh\necho mine\n");
    expect(ok(repo.mj(["capture", "install"])).stdout).toContain(`left alone       ${SHIMS.start}`);
    expect(readFileSync(repo.path(SHIMS.start), "utf8")).toBe("#!/bin/sh\necho mine\n");
  });
});

describe("capture status", () => {
  test("unconfigured before install; verified after (by executing the shims); named when a shim cannot run", () => {
    using repo = layered();
    const before = statusOf(repo);
    expect(before.find((r) => r.provider === "claude-code" && r.aspect === "prompt")?.state).toBe("unconfigured");
    ok(repo.mj(["capture", "install"]));
    const after = statusOf(repo);
    const state = (provider: string, aspect: string) =>
      after.find((r) => r.provider === provider && r.aspect === aspect)?.state;
    expect(state("claude-code", "prompt")).toBe("verified");
    expect(state("claude-code", "session")).toBe("verified");
    expect(state("claude-code", "mod")).toBe("wired");
    expect(state("codex", "session")).toBe("unconfigured");
    expect(state("gemini", "prompt")).toBe("unconfigured");
    expect(state("codex", "mod")).toBe("unsupported");
    // The self-tests touched nothing real: no prompt archived, no episode opened, no receipt.
    expect(readdirSync(repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"))).toEqual([]);
    expect(readFileSync(repo.path(".ai/local/state/ledger.jsonl"), "utf8")).not.toContain("provider.event");
    chmodSync(repo.path(SHIMS.end), 0o644);
    const broken = statusOf(repo).find((r) => r.aspect === "session" && r.provider === "claude-code")!;
    expect(broken.state).toBe("named");
    expect(broken.reason).toContain("not executable");
  });

  test("shows the clients wired here (or, before any is, the ones majordomus can wire); --all shows every row", () => {
    using repo = layered();
    const before = ok(repo.mj(["capture", "status", "--no-verify"], { env: hookEnv() }));
    // Before any client is wired: the ones majordomus can wire (all three adapted now).
    expect(before.stdout).toContain("claude-code:prompt");
    expect(before.stdout).toContain("codex:prompt");
    expect(before.stdout).toContain("gemini:prompt");
    ok(repo.mj(["capture", "install"]));
    const after = JSON.parse(ok(repo.mj(["capture", "status", "--no-verify", "--json"], { env: hookEnv() })).stdout);
    expect(new Set(after.items.map((r: { provider: string }) => r.provider))).toEqual(new Set(["claude-code"]));
    expect(after.hidden).toBeGreaterThan(0);
    const all = ok(repo.mj(["capture", "status", "--no-verify", "--all"], { env: hookEnv() }));
    expect(all.stdout).toContain("gemini:session");
    expect(all.stdout).toContain("codex:mcp");
    expect(all.stderr).toBe("");
  });

  test("wired, not verified, when no majordomus binary can be found from the shim (none recorded, none on PATH); the recorded one is found without PATH", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"]));
    const prompt = (rows: ReturnType<typeof statusOf>) =>
      rows.find((r) => r.provider === "claude-code" && r.aspect === "prompt")?.state;
    expect(prompt(statusOf(repo, { PATH: "/usr/bin:/bin" }))).toBe("verified");
    // A clone where this person never ran capture install: no record.
    rmSync(repo.path(".ai/local/state/binary"));
    expect(prompt(statusOf(repo, { PATH: "/usr/bin:/bin" }))).toBe("wired");
  });

  test("every capability cell in providers.yaml cites its source", async () => {
    const { providers } = await import("../../src/providers/index.ts");
    for (const p of (await providers()).values())
      for (const c of Object.values(p.capabilities)) expect(c.source.length).toBeGreaterThan(20);
  });
});

describe("capture uninstall", () => {
  /** Every file under `dir` with its bytes, for a byte-for-byte comparison. */
  function snapshot(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else out[p.slice(dir.length + 1)] = readFileSync(p).toString("base64");
      }
    };
    walk(dir);
    return out;
  }

  test("a merges record naming a backup outside the backups folder is not restored: only our entries are taken out", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"), { recursive: true });
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify({ model: "opus" }));
    ok(repo.mj(["capture", "install", "--merge"]));
    writeFileSync(repo.path("secret.txt"), "not for the settings file\n");
    const merges = repo.path(".ai/local/backups/merges.json");
    const record = JSON.parse(readFileSync(merges, "utf8"));
    record[".claude/settings.json"].backup = "secret.txt";
    writeFileSync(merges, JSON.stringify(record));
    ok(repo.mj(["capture", "uninstall"]));
    const settings = readFileSync(repo.path(".claude/settings.json"), "utf8");
    expect(settings).not.toContain("not for the settings file");
    expect(JSON.parse(settings)).toEqual({ model: "opus" });
  });

  test("a backups folder that is a link (to a folder of the person's) is not restored from", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude"), { recursive: true });
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify({ model: "opus" }));
    ok(repo.mj(["capture", "install", "--merge"]));
    const backups = repo.path(".ai/local/backups");
    const record = JSON.parse(readFileSync(join(backups, "merges.json"), "utf8"));
    const name = basename(record[".claude/settings.json"].backup);
    const elsewhere = repo.path("elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, name), "the person's private file\n");
    writeFileSync(join(elsewhere, "merges.json"), JSON.stringify(record));
    rmSync(backups, { recursive: true });
    symlinkSync(elsewhere, backups);
    ok(repo.mj(["capture", "uninstall"]));
    const settings = readFileSync(repo.path(".claude/settings.json"), "utf8");
    expect(settings).not.toContain("private file");
    expect(JSON.parse(settings)).toEqual({ model: "opus" });
  });

  test("removes exactly what install wrote, keeps every foreign key, hook and file byte-identical, and says what it left", () => {
    using repo = layered();
    mkdirSync(repo.path(".claude/hooks"), { recursive: true });
    mkdirSync(repo.path(".claude/skills/mine"), { recursive: true });
    const mine = {
      model: "opus",
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "echo done" }] }],
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo hi" }] }],
      },
    };
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify(mine));
    writeFileSync(repo.path(".claude/hooks/my-hook"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
    writeFileSync(repo.path(".claude/skills/mine/SKILL.md"), "# mine\n");
    writeFileSync(repo.path(".claude/notes.txt"), "my notes\n");
    const before = snapshot(repo.path(".claude"));
    ok(repo.mj(["capture", "install", "--merge"]));
    // A file the person dropped into our mod folder is theirs.
    writeFileSync(repo.path(MOD, "my-extra.md"), "mine too\n");
    expect(existsSync(repo.path(SHIMS.start))).toBe(true);

    // Changed by the person since the merge: only our entries are taken out (their change kept).
    const changed = JSON.parse(readFileSync(repo.path(".claude/settings.json"), "utf8"));
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify({ ...changed, theme: "dark" }));
    const run = ok(repo.mj(["capture", "uninstall"]));
    expect(run.stdout).toMatch(
      /^rewritten +\.claude\/settings\.json — removed the 5 majordomus hook\(s\); every other line kept as it was/m,
    );
    expect(run.stdout).toMatch(/^removed +\.claude\/hooks\/majordomus-session-start/m);
    expect(run.stdout).toContain(`files not ours were left: ${MOD}/my-extra.md`);
    const after = snapshot(repo.path(".claude"));
    // Every foreign file but the settings file is byte-identical; the settings file holds exactly what it held.
    const { "settings.json": settingsBefore, ...restBefore } = before;
    const { "settings.json": settingsAfter, "skills/majordomus-handover/my-extra.md": extra, ...restAfter } = after;
    expect(restAfter).toEqual(restBefore);
    expect(extra).toBeDefined();
    expect(JSON.parse(Buffer.from(settingsAfter!, "base64").toString())).toEqual({
      ...JSON.parse(Buffer.from(settingsBefore!, "base64").toString()),
      theme: "dark",
    });
    expect(Object.keys(after).filter((p) => p.includes("majordomus-"))).toEqual([
      "skills/majordomus-handover/my-extra.md",
    ]);
    // A second run finds nothing of ours.
    const again = ok(repo.mj(["capture", "uninstall"]));
    expect(again.stdout).toContain("left alone       .claude/settings.json — it names no majordomus hook");
    expect(again.stdout).not.toMatch(/^removed/m);
  });

  test("a settings file that held only our hooks goes, and so does the shims' folder; a shim not ours stays", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"]));
    writeFileSync(repo.path(SHIMS.prompt), "#!/bin/sh\n# my own now\n", { mode: 0o755 });
    const run = ok(repo.mj(["capture", "uninstall", "--provider", "claude-code"]));
    expect(run.stdout).toContain("removed          .claude/settings.json — it held only the 5 majordomus hook(s)");
    expect(run.stdout).toContain("left alone       .claude/hooks/majordomus-capture — not written by majordomus");
    // No empty folder is left where the mod was.
    expect(existsSync(repo.path(".claude/skills"))).toBe(false);
    expect(existsSync(repo.path(".claude/settings.json"))).toBe(false);
    expect(readFileSync(repo.path(SHIMS.prompt), "utf8")).toBe("#!/bin/sh\n# my own now\n");
    expect(existsSync(repo.path(SHIMS.start))).toBe(false);
    expect(existsSync(repo.path(MOD))).toBe(false);
  });
});

describe("the project's MCP server", () => {
  const OURS = { type: "stdio", command: "majordomus", args: ["mcp"] };
  const mcpRow = (repo: ReturnType<typeof layered>, env?: Record<string, string>) =>
    statusOf(repo, env).find((r) => r.provider === "claude-code" && r.aspect === "mcp")!;

  test("with majordomus on PATH, install names `majordomus mcp` in .mcp.json, and status proves it by starting that command and asking for its tools", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"], { env: hookEnv() }));
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8"))).toEqual({ mcpServers: { majordomus: OURS } });
    const row = mcpRow(repo);
    expect(row.state).toBe("verified");
    expect(row.reason).toContain("tools/list");
    expect(row.reason).toContain(BIN);
    expect(ok(repo.mj(["capture", "install"], { env: hookEnv() })).stdout).toContain("already present  .mcp.json");
  });

  test("Claude Code's approval of the server: install records it in the untracked local settings (git ignores it in this clone); status says verified only while it stands, `rejected` with the fix after the dialog's default, `wired, not approved` without it; doctor fails a rejection; uninstall takes it out", () => {
    using repo = layered();
    const local = ".claude/settings.local.json";
    const installed = ok(repo.mj(["capture", "install"], { env: hookEnv() })).stdout;
    expect(installed).toMatch(
      /^written +\.claude\/settings\.local\.json — your approval of the majordomus MCP server/m,
    );
    expect(JSON.parse(readFileSync(repo.path(local), "utf8"))).toEqual({ enabledMcpjsonServers: ["majordomus"] });
    expect(repo.git("status", "--porcelain", "--", local)).toBe("");
    expect(mcpRow(repo)).toMatchObject({ state: "verified" });
    expect(mcpRow(repo).reason).toContain(`${local} approves it`);

    // The dialog's preselected answer, "Continue without using this MCP server", as Claude Code writes it.
    writeFileSync(repo.path(local), `${JSON.stringify({ disabledMcpjsonServers: ["majordomus"] }, null, 2)}\n`);
    const rejected = mcpRow(repo);
    expect(rejected.state).toBe("rejected");
    expect(rejected.reason).toContain('lists "majordomus" in disabledMcpjsonServers');
    expect(rejected.reason).toContain("claude mcp reset-project-choices");
    expect(repo.mj(["doctor"], { env: hookEnv() }).stdout).toMatch(/FAIL.*claude-code:mcp.*rejected/);
    // The person's answer stands: install does not overturn it.
    expect(ok(repo.mj(["capture", "install"], { env: hookEnv() })).stdout).toMatch(
      /^left alone +\.claude\/settings\.local\.json/m,
    );
    expect(JSON.parse(readFileSync(repo.path(local), "utf8"))).toEqual({ disabledMcpjsonServers: ["majordomus"] });

    // Not asked yet (a teammate's clone: the local file is not in git).
    rmSync(repo.path(local));
    expect(mcpRow(repo)).toMatchObject({ state: "wired" });
    expect(mcpRow(repo).reason).toContain("not approved yet");
    expect(mcpRow(repo).reason).toContain('choose "Use this MCP server"');

    // A local file the repository tracks is not the person's: left alone.
    writeFileSync(repo.path(local), "{}\n");
    repo.git("add", "-f", local);
    expect(ok(repo.mj(["capture", "install"], { env: hookEnv() })).stdout).toMatch(
      /^left alone +\.claude\/settings\.local\.json — git tracks it/m,
    );
    expect(readFileSync(repo.path(local), "utf8")).toBe("{}\n");
    repo.git("rm", "-q", "--cached", local);

    // Merged into a local file of the person's, every other line kept; uninstall takes only our approval out.
    writeFileSync(repo.path(local), '{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n');
    ok(repo.mj(["capture", "install"], { env: hookEnv() }));
    expect(JSON.parse(readFileSync(repo.path(local), "utf8"))).toEqual({
      permissions: { allow: ["Bash(ls)"] },
      enabledMcpjsonServers: ["majordomus"],
    });
    ok(repo.mj(["capture", "uninstall"]));
    expect(readFileSync(repo.path(local), "utf8")).toBe('{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n');
  });

  test("a binary installed off PATH: .mcp.json names it by its absolute path; a bare name the PATH cannot find is not verified until it can", () => {
    using repo = layered();
    const off = { PATH: "/usr/bin:/bin" };
    // Installed in a folder of the person's own, outside every repository and off the PATH.
    const folder = scratch("majordomus-bin-");
    const copy = join(folder, "majordomus");
    copyFileSync(BIN, copy);
    chmodSync(copy, 0o755);
    const installed = sh(repo.dir, copy, ["capture", "install"], undefined, off);
    expect(installed.status).toBe(0);
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8"))).toEqual({
      mcpServers: { majordomus: { ...OURS, command: realpathSync(copy) } },
    });
    expect(installed.stdout).toContain("absolute path");
    // Status, run as the person runs it (the same PATH, no majordomus on it): every aspect proven by what the client will run.
    const rows = JSON.parse(sh(repo.dir, copy, ["capture", "status", "--json"], undefined, off).stdout).items as Array<{
      provider: string;
      aspect: string;
      state: string;
      reason: string;
    }>;
    for (const aspect of ["prompt", "session", "mcp"])
      expect(rows.find((r) => r.provider === "claude-code" && r.aspect === aspect)?.state, aspect).toBe("verified");
    // A teammate's .mcp.json naming the bare command, and no majordomus on this PATH: Claude Code could not start it.
    writeFileSync(repo.path(".mcp.json"), `${JSON.stringify({ mcpServers: { majordomus: OURS } })}\n`);
    const bare = JSON.parse(sh(repo.dir, copy, ["capture", "status", "--json"], undefined, off).stdout).items.find(
      (r: { provider: string; aspect: string }) => r.provider === "claude-code" && r.aspect === "mcp",
    );
    expect(bare.state).toBe("wired");
    expect(bare.reason).toContain("no majordomus is on your PATH");
    expect(bare.reason).toContain("capture install");
    // Once the PATH finds one, the same configuration is verified.
    expect(mcpRow(repo).state).toBe("verified");
    // And capture install brings our own entry up to date (from the bare name to this binary's path, PATH lacking one).
    expect(sh(repo.dir, copy, ["capture", "install"], undefined, off).stdout).toContain("rewritten        .mcp.json");
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8")).mcpServers.majordomus.command).toBe(
      realpathSync(copy),
    );
    rmSync(folder, { recursive: true, force: true });
  });

  test("an MCP command inside the repository that capture install did not record is never run", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"], { env: hookEnv() }));
    const planted = repo.path("tools/majordomus");
    mkdirSync(repo.path("tools"));
    writeFileSync(planted, `#!/bin/sh\ntouch "${repo.path("ran")}"\n`, { mode: 0o755 });
    writeFileSync(
      repo.path(".mcp.json"),
      `${JSON.stringify({ mcpServers: { majordomus: { ...OURS, command: planted } } })}\n`,
    );
    const row = mcpRow(repo);
    expect(row.state).toBe("named");
    expect(row.reason).toContain("did not record");
    expect(existsSync(repo.path("ran"))).toBe(false);
    // Named through a link to the checkout from outside it, it is still inside: not run either.
    const alias = `${repo.dir}-alias`;
    symlinkSync(repo.dir, alias);
    try {
      writeFileSync(
        repo.path(".mcp.json"),
        `${JSON.stringify({ mcpServers: { majordomus: { ...OURS, command: join(alias, "tools/majordomus") } } })}\n`,
      );
      const linked = mcpRow(repo);
      expect(linked.state).toBe("named");
      expect(linked.reason).toContain("did not record");
      expect(existsSync(repo.path("ran"))).toBe(false);
    } finally {
      rmSync(alias);
    }
  });

  test("a .mcp.json of the person's stays byte-identical (refused, exit 15) unless --merge, which keeps every other server; uninstall takes only ours", () => {
    using repo = layered();
    const mine = `{"mcpServers":{"docs":{"command":"docs-server"}}}`;
    writeFileSync(repo.path(".mcp.json"), mine);
    const refused = repo.mj(["capture", "install"], { env: hookEnv() });
    expect(refused.status).toBe(15);
    expect(refused.stderr).toContain(`"majordomus": ${JSON.stringify(OURS)}`);
    expect(readFileSync(repo.path(".mcp.json"), "utf8")).toBe(mine);
    ok(repo.mj(["capture", "install", "--merge"], { env: hookEnv() }));
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8"))).toEqual({
      mcpServers: { docs: { command: "docs-server" }, majordomus: OURS },
    });
    ok(repo.mj(["capture", "uninstall"]));
    expect(JSON.parse(readFileSync(repo.path(".mcp.json"), "utf8"))).toEqual({
      mcpServers: { docs: { command: "docs-server" } },
    });
    // A server of the person's under our name is theirs.
    writeFileSync(repo.path(".mcp.json"), `{"mcpServers":{"majordomus":{"command":"something-else"}}}`);
    expect(ok(repo.mj(["capture", "install", "--merge"])).stdout).toContain(
      "left alone       .mcp.json — it names another server majordomus; it is yours",
    );
    expect(statusOf(repo).find((r) => r.aspect === "mcp" && r.provider === "claude-code")!.state).toBe("named");
  });
});

describe("hook commands, proven as the client runs them", () => {
  test("status runs the command the settings name, with the person's PATH: with no binary recorded and none on PATH, the hooks are not verified", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"], { env: hookEnv() }));
    const verified = statusOf(repo).filter(
      (r) => r.provider === "claude-code" && (r.aspect === "prompt" || r.aspect === "session"),
    );
    expect(verified.map((r) => r.state)).toEqual(["verified", "verified"]);
    rmSync(repo.path(".ai/local/state/binary"));
    const off = statusOf(repo, { PATH: "/usr/bin:/bin" }).filter(
      (r) => r.provider === "claude-code" && (r.aspect === "prompt" || r.aspect === "session"),
    );
    expect(off.map((r) => r.state)).toEqual(["wired", "wired"]);
    expect(off[0]!.reason).toContain("find no majordomus");
  });

  test("a settings command of the person's that runs our shim some other way is named, not run", () => {
    using repo = layered();
    ok(repo.mj(["capture", "install"], { env: hookEnv() }));
    const settings = JSON.parse(readFileSync(repo.path(".claude/settings.json"), "utf8"));
    settings.hooks.UserPromptSubmit[0].hooks[0].command = `touch "${repo.path("ran")}"; .claude/hooks/majordomus-capture`;
    writeFileSync(repo.path(".claude/settings.json"), JSON.stringify(settings));
    const row = statusOf(repo).find((r) => r.provider === "claude-code" && r.aspect === "prompt")!;
    expect(row.state).toBe("named");
    expect(row.reason).toContain("a command of its own");
    expect(existsSync(repo.path("ran"))).toBe(false);
  });
});

describe("which clients capture install wires", () => {
  test("without --provider: Claude Code always, and the others found here or on PATH, saying why", () => {
    using repo = layered();
    const none = ok(repo.mj(["capture", "install"], { env: { PATH: "/usr/bin:/bin" } }));
    expect(none.stderr).toContain("wiring Claude Code: always");
    expect(existsSync(repo.path(".codex"))).toBe(false);
    // A `codex` on PATH (a stand-in: only its presence is looked at) is wired too.
    const bin = repo.path("..", `fake-bin-${process.pid}`);
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "codex"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    const both = ok(repo.mj(["capture", "install"], { env: { PATH: `${bin}:/usr/bin:/bin` } }));
    expect(both.stderr).toContain("wiring Claude Code: .claude/settings.json is here");
    // Only codex on PATH, in a fresh repository (Claude Code used from an IDE, off PATH): Claude Code is wired all the same.
    using fresh = layered();
    const onlyCodex = ok(fresh.mj(["capture", "install"], { env: { PATH: `${bin}:/usr/bin:/bin` } }));
    expect(onlyCodex.stderr).toContain("wiring Claude Code: always");
    expect(onlyCodex.stderr).toMatch(/wiring Codex CLI: codex is on PATH/);
    expect(existsSync(fresh.path(".claude/settings.json"))).toBe(true);
    expect(existsSync(fresh.path(".codex/hooks.json"))).toBe(true);
    expect(both.stderr).toMatch(/wiring Codex CLI: codex is on PATH/);
    expect(JSON.parse(readFileSync(repo.path(".codex/hooks.json"), "utf8")).hooks.SessionEnd[0].hooks[0]).toMatchObject(
      { type: "command", timeout: 3 },
    );
    // What Codex needs before it runs them is said (here it cannot be asked: the stand-in answers nothing).
    expect(both.stderr).toContain("codex will not run these hooks yet");
    // A `copilot` on PATH: its own hook file, and its trust step.
    writeFileSync(join(bin, "copilot"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    using third = layered();
    const withCopilot = ok(third.mj(["capture", "install"], { env: { PATH: `${bin}:/usr/bin:/bin` } }));
    expect(withCopilot.stderr).toMatch(/wiring GitHub Copilot CLI: copilot is on PATH/);
    const hookFile = JSON.parse(readFileSync(third.path(".github/hooks/majordomus.json"), "utf8"));
    expect(hookFile.version).toBe(1);
    expect(hookFile.hooks.sessionStart[0]).toMatchObject({
      type: "command",
      bash: '"$COPILOT_PROJECT_DIR"/.github/hooks/majordomus-session-start',
      timeoutSec: 20,
    });
    expect(hookFile.hooks.sessionStart[0].powershell).toContain(".github/hooks/majordomus-session-start");
    expect(withCopilot.stderr).toContain("copilot will not run these hooks yet");
    rmSync(bin, { recursive: true, force: true });
  });
});
