// opencode 1.18.33, the fifth client, for real: installed from npm into the cache, HOME and the four
// XDG folders in the test's own folder, offline against the loopback Anthropic mock. Our plugin
// (written by `capture install` into .opencode/plugins/) runs the shims: the briefing reaches the
// model in the system prompt, the prompt is archived, the end closes the episode; the fresh window
// answers an automatic compaction and one asked of opencode's server (what the TUI's /compact calls)
// with the boot; a handover written in opencode is briefed to Claude Code and back, labelled.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { closedTexts, ledger, ok } from "../support/layered.ts";
import { statusRow } from "../support/capture.ts";
import type { ToolCall } from "./mock-anthropic.ts";
import { OpencodeRig } from "./opencode-rig.ts";
import { ClaudeRig } from "./rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;
const HEADING = "majordomus — what this repository already knows";
const NEXT = "Wire the tokenizer into src/ini.ts, then run the tests.";
const HANDOVER = `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${NEXT}\n`;
const BOOT = "Resume from the Next Action above.";

const frontField = (text: string, key: string) => new RegExp(`^${key}: (.*)$`, "m").exec(text)?.[1];
const offers = (request: { body?: Record<string, unknown> }, tool: string) =>
  JSON.stringify(request.body?.tools ?? []).includes(`"${tool}"`);

/** The fresh window, asked by the repository's policy and granted in this checkout's own consent file. */
function freshWindow(rig: OpencodeRig): void {
  const path = rig.repo.path(".ai/repo/policy.yaml");
  writeFileSync(path, readFileSync(path, "utf8").replace(/^session:\n/m, "session:\n  fresh_window: true\n"));
  rig.repo.git("commit", "-q", "-am", "Ask for the fresh window");
  writeFileSync(rig.repo.path(".ai/local/state/consent.yaml"), "session:\n  fresh_window: true\n");
}

/** `opencode serve` in the project: its HTTP API, as the TUI uses it; stopped with SIGTERM. */
async function serve(rig: OpencodeRig) {
  const port = 41_000 + Math.floor(Math.random() * 4_000);
  const child = Bun.spawn([rig.opencode, "serve", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: rig.project,
    env: rig.env(),
    stdout: "ignore",
    stderr: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  const here = `directory=${encodeURIComponent(rig.project)}`;
  const call = async (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}${path.includes("?") ? "&" : "?"}${here}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(90_000),
    });
  for (let i = 0; i < 150; i++) {
    try {
      await fetch(`${base}/session`, { signal: AbortSignal.timeout(2_000) });
      break;
    } catch {
      await Bun.sleep(200);
    }
  }
  return {
    call,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

describe.skipIf(!ENABLED)("opencode 1.18.33 against the mock API", () => {
  test(
    "install, then a session: the briefing reaches the model in the system prompt, the prompt is archived, the end closes the episode as closed; status verifies the wiring",
    async () => {
      using rig = new OpencodeRig();
      expect(rig.installed).toContain(".opencode/plugins/majordomus.js");
      ok(rig.repo.mj(["handover"], { input: HANDOVER }));
      const run = await rig.run(["run", "say ok"]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("ok");
      // Both requests (the title's and the main one) carry the briefing, with the agent's Next Action whole.
      const main = rig.mock.requests.filter((r) => offers(r, "write"));
      expect(main.length).toBe(1);
      expect(main[0]!.text).toContain(HEADING);
      expect(main[0]!.text).toContain(`Its Next Action, in its author's own words, quoted:\n> ${NEXT}`);
      // The prompt, archived as sent.
      const prompts = readdirSync(rig.repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));
      expect(prompts.length).toBe(1);
      const archived = JSON.parse(readFileSync(rig.repo.path(`.ai/local/prompts/${prompts[0]}`), "utf8"));
      expect(archived).toMatchObject({ provider: "opencode", episode_link: "open" });
      expect(archived.text).toContain("say ok");
      // The end at the process's exit: closed, with its records.
      const [record] = closedTexts(rig.repo);
      expect(frontField(record!, "provider")).toBe("opencode");
      expect(frontField(record!, "outcome")).toBe("closed");
      expect(record).toContain("(client reason: exit)");
      const events = ledger(rig.repo).map((l) => l.event);
      expect(events).toContain("session.briefed");
      expect(events.filter((e) => e === "session.closed").length).toBe(1);
      for (const aspect of ["prompt", "session"])
        expect(statusRow(rig.repo, "opencode", aspect, rig.env()).state).toBe("verified");
      expect(statusRow(rig.repo, "opencode", "mod", rig.env()).state).toBe("wired");
    },
    TIMEOUT,
  );

  test(
    "the fresh window: an automatic compaction (the mock reports a full window) is answered with the boot, not the summary",
    async () => {
      let calls = 0;
      let full = 0;
      const write = (project: string): ToolCall => ({
        name: "write",
        input: { filePath: `${project}/notes.txt`, content: "x\n" },
      });
      using rig = new OpencodeRig({
        mock: {
          inputTokens: (r) => (offers(r, "write") && full++ === 0 ? 990_000 : 1_000),
          tool: (r) => (offers(r, "write") && calls++ === 0 ? write(rig.project) : undefined),
        },
      });
      freshWindow(rig);
      ok(rig.repo.mj(["handover"], { input: HANDOVER }));
      expect((await rig.run(["run", "say ok"])).status).toBe(0);
      const main = rig.mock.requests.filter((r) => offers(r, "write"));
      // The request after the compaction: the boot in the compaction's place, the agent's handover in it.
      const after = main.at(-1)!;
      expect(after.text).toContain(BOOT);
      expect(after.text).toContain(`> # Next Action\n> ${NEXT}`);
      expect(after.text).toContain("(The window restarts from the majordomus boot above.)");
      // The summarizer was asked for one word, and its answer is not what the next request starts from.
      expect(rig.mock.requests.some((r) => r.text.includes("Reply with the single word: compacted."))).toBe(true);
      expect(ledger(rig.repo).some((l) => l.event === "session.window")).toBe(true);
    },
    TIMEOUT,
  );

  test(
    "the fresh window: a compaction asked of opencode's server (what the TUI's /compact calls) resumes the session and answers with the boot; SIGTERM ends it",
    async () => {
      using rig = new OpencodeRig();
      freshWindow(rig);
      ok(rig.repo.mj(["handover"], { input: HANDOVER }));
      expect((await rig.run(["run", "say ok"])).status).toBe(0);
      const server = await serve(rig);
      try {
        const [session] = (await (await server.call("GET", "/session")).json()) as Array<{ id: string }>;
        const before = rig.mock.requests.length;
        const summarized = await server.call("POST", `/session/${session!.id}/summarize`, {
          providerID: "anthropic",
          modelID: "claude-sonnet-4-5",
        });
        expect(summarized.status).toBe(200);
        const answered = await server.call("POST", `/session/${session!.id}/message`, {
          parts: [{ type: "text", text: "go on" }],
        });
        expect(answered.status).toBe(200);
        const next = rig.mock.requests.slice(before).filter((r) => offers(r, "write"));
        expect(next.at(-1)!.text).toContain(BOOT);
        expect(next.at(-1)!.text).toContain("go on");
      } finally {
        await server.stop();
      }
      expect(closedTexts(rig.repo).length).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "across clients: a handover written in an opencode session is briefed to Claude Code, labelled as authored; one written in Claude Code reaches opencode",
    async () => {
      const first = "Port the INI reader; start with test/ini.test.ts.";
      const second = "Now wire the INI reader into src/main.ts.";
      const body = (next: string) =>
        `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\n${next}\n`;
      // By name from PATH, the body on stdin: as an agent writes its handover.
      const handsOver = (tool: string, next: string) => {
        let asked = false;
        return (r: { body?: Record<string, unknown> }): ToolCall | undefined => {
          if (asked || !offers(r, tool)) return undefined;
          asked = true;
          const command = `printf '%s' '${body(next)}' | majordomus handover`;
          return { name: tool, input: { command, description: "hand over" } };
        };
      };
      using oc = new OpencodeRig({ mock: { tool: handsOver("bash", first) } });
      expect((await oc.run(["run", "write your handover"])).status).toBe(0);
      const written = ok(oc.repo.mj(["handover", "--resolve", "--json"])).stdout;
      expect(JSON.parse(written).record).toMatchObject({ how: "authored", next_action: [first] });

      using claude = new ClaudeRig({ repo: oc.repo, wire: true, mock: { tool: handsOver("Bash", second) } });
      claude.trust();
      expect((await claude.run(["-p", "go on", "--allowedTools", "Bash"])).status).toBe(0);
      const briefed = claude.mock.messages()[0]!.text;
      expect(briefed).toContain(`Its Next Action, in its author's own words, quoted:\n> ${first}`);
      expect(briefed).toMatch(/Handover \S+ \(authored, same_worktree_same_branch/);

      expect((await oc.run(["run", "what next?"])).status).toBe(0);
      const back = oc.mock.requests.filter((r) => offers(r, "write")).at(-1)!.text;
      expect(back).toContain(`Its Next Action, in its author's own words, quoted:\n> ${second}`);
      const providers = closedTexts(oc.repo).map((t) => frontField(t, "provider"));
      expect(providers).toEqual(["opencode", "claude-code", "opencode"]);
    },
    TIMEOUT,
  );

  test(
    "a usage limit: Claude Code hits a 429 after a tool call changed a file; the stop and its checkpoint are recorded before it exits, and opencode started next is told, with the checkpoint",
    async () => {
      let wrote = false;
      using claude = new ClaudeRig({
        mock: {
          tool: (r) =>
            !wrote && offers(r, "Write")
              ? ((wrote = true),
                { name: "Write", input: { file_path: `${claude.project}/src/ini.ts`, content: "x\n" } })
              : undefined,
          error: (r) =>
            wrote && JSON.stringify(r.body?.messages ?? []).includes("tool_result")
              ? {
                  status: 429,
                  type: "rate_limit_error",
                  message: "usage limit reached",
                  headers: { "retry-after": "3600", "anthropic-ratelimit-unified-status": "rejected" },
                }
              : undefined,
        },
      });
      claude.trust();
      const stopped = await claude.run(["-p", "go on", "--allowedTools", "Write"]);
      expect(stopped.status).toBe(1);
      const lines = ledger(claude.repo);
      const at = (match: (l: Record<string, unknown>) => boolean) => lines.findIndex(match);
      const stop = lines[at((l) => l.event === "session.stopped")]!;
      expect(stop).toMatchObject({ provider: "claude-code", error: "rate_limit" });
      // Recorded in the StopFailure hook, before the end the exit brought.
      expect(at((l) => l.event === "session.stopped")).toBeLessThan(
        at((l) => l.event === "provider.event.received" && l.provider_event === "end"),
      );
      const checkpoint = String(stop.checkpoint);
      expect(readFileSync(claude.repo.path(checkpoint), "utf8")).toContain("src/ini.ts");

      using oc = new OpencodeRig({ repo: claude.repo });
      expect((await oc.run(["run", "what next?"])).status).toBe(0);
      const told = oc.mock.requests.filter((r) => offers(r, "write")).at(-1)!.text;
      expect(told).toMatch(
        /STOPPED: claude-code session \S+ \(episode s-\S+, ended since\): it stopped at its usage limit (just now|\d+m ago) \(rate_limit\)/,
      );
      expect(told).toContain(`its account then: the checkpoint ${checkpoint}`);
    },
    TIMEOUT,
  );

  test(
    "a usage limit in opencode: its session.error at a 429 (after opencode's own retries) marks the stop, and Claude Code started next is told",
    async () => {
      using oc = new OpencodeRig({
        mock: {
          error: (r) =>
            offers(r, "write")
              ? {
                  status: 429,
                  type: "rate_limit_error",
                  message: "usage limit reached",
                  // opencode retries a 429 itself: told to retry at once, it gives up within seconds.
                  headers: { "anthropic-ratelimit-unified-status": "rejected", "retry-after-ms": "10" },
                }
              : undefined,
        },
      });
      expect((await oc.run(["run", "say ok"])).timedOut).toBe(false);
      expect(ledger(oc.repo).find((l) => l.event === "session.stopped")).toMatchObject({
        provider: "opencode",
        error: "rate_limit",
      });
      using claude = new ClaudeRig({ repo: oc.repo, wire: true });
      claude.trust();
      expect((await claude.run(["-p", "what next?"])).status).toBe(0);
      expect(claude.mock.messages()[0]!.text).toMatch(
        /STOPPED: opencode session ses_\S+ \(episode s-\S+, ended since\): it stopped at its usage limit/,
      );
    },
    TIMEOUT,
  );

  test(
    "the person's own opencode.json and plugin: untouched by install and uninstall, loaded beside ours, and still loaded once ours is gone",
    async () => {
      using rig = new OpencodeRig({ install: false });
      const plugin =
        'export const Mine = async () => ({\n  "experimental.chat.system.transform": async (_i, o) => {\n    o.system.push("MY OWN PLUGIN SPEAKS");\n  },\n});\n';
      const config = '{\n  // mine\n  "autoupdate": false,\n  "share": "disabled"\n}\n';
      mkdirSync(rig.repo.path(".opencode/plugins"), { recursive: true });
      writeFileSync(rig.repo.path(".opencode/plugins/mine.js"), plugin);
      writeFileSync(rig.repo.path("opencode.json"), config);
      rig.repo.git("add", ".opencode", "opencode.json");
      rig.repo.git("commit", "-q", "-m", "My opencode setup");
      const installed = ok(rig.repo.mj(["capture", "install", "--provider", "opencode"], { env: rig.env() }));
      expect(installed.stderr).toContain(".opencode/plugins/majordomus.js");
      const same = () => {
        expect(readFileSync(rig.repo.path(".opencode/plugins/mine.js"), "utf8")).toBe(plugin);
        expect(readFileSync(rig.repo.path("opencode.json"), "utf8")).toBe(config);
      };
      same();
      expect((await rig.run(["run", "say ok"])).status).toBe(0);
      const both = rig.mock.requests.filter((r) => offers(r, "write")).at(-1)!.text;
      expect(both).toContain("MY OWN PLUGIN SPEAKS");
      expect(both).toContain(HEADING);

      // opencode itself adds a "$schema" to the project's opencode.json as it runs: what uninstall must keep is that.
      const theirs = readFileSync(rig.repo.path("opencode.json"), "utf8");
      const removed = ok(rig.repo.mj(["capture", "uninstall", "--provider", "opencode"], { env: rig.env() }));
      expect(removed.stdout).toMatch(/^removed +\.opencode\/plugins\/majordomus\.js$/m);
      expect(readFileSync(rig.repo.path(".opencode/plugins/mine.js"), "utf8")).toBe(plugin);
      expect(readFileSync(rig.repo.path("opencode.json"), "utf8")).toBe(theirs);
      // (opencode keeps a package.json and node_modules of its own there.)
      expect(readdirSync(rig.repo.path(".opencode"))).not.toContain("majordomus");
      expect(readdirSync(rig.repo.path(".opencode/plugins"))).toEqual(["mine.js"]);
      expect((await rig.run(["run", "say ok"])).status).toBe(0);
      const mine = rig.mock.requests.filter((r) => offers(r, "write")).at(-1)!.text;
      expect(mine).toContain("MY OWN PLUGIN SPEAKS");
      expect(mine).not.toContain(HEADING);
    },
    TIMEOUT,
  );

  test(
    "uptake read from opencode's own store: a session that writes the named file and runs the named command acted on the Next Action",
    async () => {
      const steps: Array<(project: string) => ToolCall> = [
        (project) => ({
          name: "write",
          input: { filePath: `${project}/src/ini.ts`, content: "export const t = 1;\n" },
        }),
        () => ({ name: "bash", input: { command: "git status --short", description: "check" } }),
      ];
      let i = 0;
      using rig = new OpencodeRig({
        mock: { tool: (r) => (offers(r, "write") && i < steps.length ? steps[i++]!(rig.project) : undefined) },
      });
      ok(
        rig.repo.mj(["handover"], {
          input: `# Objective\nA parser.\n\n# Current State\nThe tokenizer is done.\n\n# Next Action\nWire the tokenizer into \`src/ini.ts\`, then check \`git status --short\`.\n`,
        }),
      );
      expect((await rig.run(["run", "go on"])).status).toBe(0);
      const [record] = closedTexts(rig.repo);
      expect(record).toMatch(/^uptake:\n {2}state: acted\n/m);
      expect(record).toContain("acted (2 of 2 named; first in turn 1");
    },
    TIMEOUT,
  );
});
