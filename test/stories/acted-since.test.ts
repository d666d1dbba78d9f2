// What happened since reaches every surface: a session that acted on part of a handed Next Action
// (its Claude Code transcript, read by the end hook through the installed shims) is named beside the
// Next Action by `handover --resolve` (text and --json), `context`, MCP's continuity, the API and the
// page; once a second session did the rest, each says the Next Action is what was asked, not the thing to do.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captured, fire, fixture } from "../support/capture.ts";
import { ok } from "../support/layered.ts";
import { mcpAnswers } from "../support/mcp.ts";
import { startServe } from "../support/serve.ts";
import { scratch, type Repo } from "../support/repo.ts";

const NEXT = "Edit `src/ini.ts`, then run `git status --short`.";
const HANDOVER = `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${NEXT}\n`;

/** One Claude Code session: started, its tool calls in its transcript (each succeeded), ended as `claude -p` ends. */
function session(
  repo: Repo,
  home: string,
  id: string,
  calls: Array<{ name: string; input: object }>,
  clock: { start?: string; end?: string } = {},
) {
  const transcript = join(home, ".claude", "projects", "p", `${id}.jsonl`);
  mkdirSync(join(home, ".claude", "projects", "p"), { recursive: true });
  const env = { CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const at = (t: string | undefined) => (t ? { ...env, MAJORDOMUS_NOW: t } : env);
  const payload = { session_id: id, transcript_path: transcript, cwd: repo.dir };
  fire(repo, "start", { ...fixture("SessionStart-startup.json"), ...payload }, at(clock.start));
  const rows = [JSON.stringify({ type: "user", message: { role: "user", content: "go on" } })];
  calls.forEach((c, i) => {
    rows.push(
      JSON.stringify({
        type: "assistant",
        message: { id: `m${i}`, content: [{ type: "tool_use", id: `t${i}`, name: c.name, input: c.input }] },
      }),
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "ok" }] },
      }),
    );
  });
  writeFileSync(transcript, `${rows.join("\n")}\n`);
  fire(repo, "end", { ...fixture("SessionEnd-other.json"), ...payload }, at(clock.end));
}

type Acted = { state: string; session_id: string; provider: string; not_yet: string[]; history: boolean; said: string };

async function surfaces(repo: Repo) {
  const text = ok(repo.mj(["handover", "--resolve"])).stdout;
  const json = JSON.parse(ok(repo.mj(["handover", "--resolve", "--json"])).stdout) as { acted: Acted | null };
  const context = ok(repo.mj(["context"])).stdout;
  const contextJson = JSON.parse(ok(repo.mj(["context", "--json"])).stdout) as { handover_acted: Acted | null };
  const mcp = JSON.parse(JSON.parse(mcpAnswers(repo.dir, ["continuity"])[0]!).content[0].text) as {
    handover: { acted_since: Acted | null; next_action: string | null };
    next: string[];
  };
  const served = await startServe(repo.dir);
  try {
    const api = (await (await served.fetch("/api/v1/continuity")).json()) as typeof mcp;
    const page = await (await served.fetch("/")).text();
    return { text, json: json.acted, context, contextJson: contextJson.handover_acted, mcp, api, page };
  } finally {
    served.child.kill();
  }
}

describe("what happened since, on every surface", () => {
  test("one session did part of the Next Action: who, what, what is left; a second did the rest: history", async () => {
    using repo = captured();
    const home = scratch("majordomus-acted-home-");
    try {
      ok(repo.mj(["handover"], { input: HANDOVER }));
      // Session 2 writes the named file (git shows it changed) and ends with no handover of its own.
      mkdirSync(repo.path("src"), { recursive: true });
      writeFileSync(repo.path("src/ini.ts"), "export const ini = 1;\n");
      session(repo, home, "s-two", [{ name: "Write", input: { file_path: repo.path("src/ini.ts"), content: "x" } }]);
      const one = await surfaces(repo);
      const first = one.json!.session_id;
      for (const a of [one.json, one.contextJson, one.mcp.handover.acted_since, one.api.handover.acted_since])
        expect(a).toMatchObject({
          state: "partly",
          session_id: first,
          provider: "claude-code",
          not_yet: ["git status --short"],
          history: false,
        });
      const said = one.json!.said;
      expect(said).toMatch(
        /^Since it was written, session s-\S+ \(claude-code, closed [^)]+\) acted on it: src\/ini\.ts/,
      );
      expect(said).toContain('not yet: "git status --short"');
      expect(one.text).toContain(said);
      expect(one.context).toContain(said);
      expect(one.mcp.next).toContain(said);
      expect(one.mcp.handover.next_action).toBe(NEXT);
      expect(one.mcp.next).toContain("Follow the handover's Next Action above, after checking it against git.");
      expect(one.page).toContain(`<p class="acted" data-acted="partly">Since it was written, session ${first}`);
      expect(one.page).toContain("<h3>Next Action</h3>");

      // Session 3 runs the rest: every surface now says the Next Action is history.
      session(repo, home, "s-three", [{ name: "Bash", input: { command: "git status --short" } }]);
      const two = await surfaces(repo);
      for (const a of [two.json, two.contextJson, two.mcp.handover.acted_since, two.api.handover.acted_since])
        expect(a).toMatchObject({ state: "acted", sessions: 2, not_yet: [], history: true });
      expect(two.json!.session_id).not.toBe(first);
      expect(first).toMatch(/^s-\d{14}-/);
      expect(two.json!.said).toMatch(/^Since it was written, 2 sessions, the last session s-\S+ \(claude-code/);
      expect(two.text).toContain("Every step of its Next Action was acted on: below it is what was asked");
      expect(two.context).toContain("every step of which was acted on since: what was asked, quoted:");
      expect(two.mcp.next).toContain(
        "Every step of the handover's Next Action was acted on since: it is what was asked, not the thing to do.",
      );
      expect(two.mcp.next).not.toContain("Follow the handover's Next Action above, after checking it against git.");
      expect(two.page).toContain("<h3>Next Action (acted on since: what was asked)</h3>");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("two sessions closed in the same second: the later by the millisecond is the last, whatever their names", () => {
    using repo = captured();
    const home = scratch("majordomus-acted-home-");
    try {
      ok(repo.mj(["handover"], { input: HANDOVER }));
      const after = (s: number) => new Date(Date.now() + s * 1000).toISOString();
      const second = after(60).replace(/\.\d+Z$/, "");
      mkdirSync(repo.path("src"), { recursive: true });
      writeFileSync(repo.path("src/ini.ts"), "export const ini = 1;\n");
      // The second session's id (its start time) sorts before the first's, so its record's name does too.
      const edit = [{ name: "Write", input: { file_path: repo.path("src/ini.ts"), content: "x" } }];
      session(repo, home, "s-early", edit, { start: after(20), end: `${second}.100Z` });
      session(repo, home, "s-late", [{ name: "Bash", input: { command: "git status --short" } }], {
        start: after(10),
        end: `${second}.900Z`,
      });
      const acted = (
        JSON.parse(ok(repo.mj(["handover", "--resolve", "--json"])).stdout) as {
          acted: (Acted & { sessions: number; closed_at: string }) | null;
        }
      ).acted;
      expect(acted).toMatchObject({ state: "acted", sessions: 2, closed_at: `${second}.900Z` });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
