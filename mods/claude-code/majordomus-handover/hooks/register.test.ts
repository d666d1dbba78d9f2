// The mod against Claude Code's own engine (`claude plugin test`): the engine beneath it is
// played by this file's hooks, with a repository that is (or is not) supervised, and a majordomus
// binary whose answers (`capture window`) each test scripts.
import { expect, mock, test } from "claude-code/testing";
import type { On, SessionMeasureInput, SessionMessage } from "claude-code";
import {
  currentPrompt,
  deriveThreshold,
  lineFor,
  pointsFor,
  readMargins,
  REFUSALS,
  VETO,
  writesHandover,
} from "./register";

type Status = { on: boolean; manual?: "veto" | "summary"; boot?: string | null; failStatus?: boolean };
type World = {
  supervised?: boolean;
  env?: Record<string, string>;
  clientThreshold?: number;
  settings?: Record<string, unknown>;
  fresh?: Status;
};

/** What the engine beneath saw: prompts submitted (with their context), the binary's runs, logs, compactions it ran itself. */
type Seen = {
  clock: ReturnType<typeof mock.clock>;
  prompts: Array<{ text: string; context: readonly string[] }>;
  runs: Array<{ argv: readonly string[]; env: Record<string, string> }>;
  logs: string[];
  summaries: number;
  registered: string[];
  calls: Array<Record<string, unknown>>;
};

const BOOT =
  "# majordomus fresh window s-1:1\n\nHandover (authored, same_worktree_same_branch, exact, fresh, 0m old)\n> Do C next.";

function answer(action: string, fresh: Status): string {
  const base = {
    schema: "majordomus/window/v1",
    action,
    manual: fresh.manual ?? "veto",
    episode: "s-1",
    window: 0,
    window_id: "s-1:0",
    transcript: true,
  };
  const grant = fresh.on
    ? { on: true, asked: true }
    : { on: false, asked: false, why: "policy.yaml does not set session.fresh_window: true" };
  if (action === "status") return JSON.stringify({ ...base, ok: true, fresh_window: grant });
  if (!fresh.on || fresh.boot === null)
    return JSON.stringify({ ...base, ok: false, why: "the episode closed", fresh_window: grant });
  return JSON.stringify({
    ...base,
    ok: true,
    window: 1,
    window_id: "s-1:1",
    fresh_window: grant,
    boot: fresh.boot ?? BOOT,
  });
}

function engine(on: On, world: World): Seen {
  const seen: Seen = {
    clock: mock.clock(on),
    prompts: [],
    runs: [],
    logs: [],
    summaries: 0,
    registered: [],
    calls: [],
  };
  // Stand-ins for the calls the mod makes on `$` answer `{ value }`, what the call resolves to.
  on("session.root", () => ({ value: "/repo" }));
  on("fs.exists", ($, e) => ({ value: world.supervised !== false && e.path === "/repo/.ai/manifest.yaml" }));
  on("env.get", ($, e) => ({ value: world.env?.[e.name] }));
  on("settings.read", () => ({ value: (world.settings ?? {}) as never }));
  on("session.usage", () => ({
    value: {
      startedAt: 0,
      context: {
        window: 1_000_000,
        breakdown: world.clientThreshold
          ? ({ autoCompactThreshold: world.clientThreshold, isAutoCompactEnabled: true } as never)
          : undefined,
      },
      rateLimits: [],
    },
  }));
  on("ui.toast", () => ({ value: undefined }));
  on("ui.log", ($, e) => {
    seen.logs.push(e.text);
    return { value: undefined };
  });
  on("command.register", ($, e) => {
    seen.registered.push(e.name);
    return { value: { command: e.name } };
  });
  on("process.hookEnv", () => ({ value: { CLAUDE_CODE_SESSION_ID: "cc-1", CLAUDE_PROJECT_DIR: "/repo" } }));
  on("process.run", ($, e) => {
    seen.runs.push({ argv: e.argv, env: e.init?.env ?? {} });
    const action = e.argv[e.argv.indexOf("--action") + 1]!;
    if (world.fresh?.failStatus)
      return {
        value: { exitCode: 13, stdout: "", stderr: "boom", isStdoutTruncated: false, isStderrTruncated: false },
      };
    return {
      value: {
        exitCode: 0,
        stdout: `${answer(action, world.fresh ?? { on: false })}\n`,
        stderr: "",
        isStdoutTruncated: false,
        isStderrTruncated: false,
      },
    };
  });
  on("prompt.submit", ($, e) => {
    seen.prompts.push({ text: e.text, context: e.context ?? [] });
    return { text: e.text, context: e.context };
  });
  on("session.start", ($, e) => ({ cwd: e.cwd }));
  on("session.end", () => ({}) as never);
  on("turn.start", ($, e) => ({ turnId: e.turnId }) as never);
  on("turn.complete", ($, e) => ({ text: e.answer }));
  // The engine's own compaction: a summary message, as core answers.
  on("session.compact", () => {
    seen.summaries += 1;
    return { messages: [{ role: "user", text: "SUMMARY", toolUses: [] }] };
  });
  // Events with results of their own (a prompt, a tool call) answer with that result.
  on("session.id", () => ({ value: "cc-now" }));
  on("tool.call", ($, e) => {
    seen.calls.push(e as unknown as Record<string, unknown>);
    return { result: { stdout: "", stderr: "" } as never, text: "" };
  });
  // The engine's own answer to a measurement: it echoes what changed.
  on("session.measure", ($, e) => ({ changed: e.changed }));
  return seen;
}

const measure = (tokens: number, window: number): SessionMeasureInput => ({
  context: { tokens, window, percent: Math.round((tokens / window) * 100) },
  rateLimits: [],
  changed: ["context"],
});
const asked = (seen: Seen) => seen.prompts.filter((p) => p.text.includes("write a majordomus handover now"));
const warnings = (seen: Seen) =>
  seen.prompts.filter((p) => p.context.some((c) => c.includes("this context window is nearly full")));
const boots = (seen: Seen) => seen.runs.filter((r) => r.argv.includes("boot"));
const prompt = (text: string, extra: Record<string, unknown> = {}) =>
  ({ text, wait: false, origin: { kind: "composer" }, ...extra }) as never;
const freshWindow = {
  command: "fresh-window",
  args: "",
  origin: { kind: "composer" },
  presentation: { isFullscreen: false, columns: 80 },
} as never;
const user = (text: string, handle: string): SessionMessage => ({ role: "user", text, toolUses: [], handle });
const start = (interactive: boolean) =>
  ({ cwd: "/repo", surface: interactive ? "terminal" : null, isInteractive: interactive }) as never;
const turnDone = (reason = "answer") =>
  ({ answer: "", durationMs: 1, isAborted: reason === "aborted", turnId: "t", reason }) as never;

test("a 200k window: asks once past the line, not before, and not twice in one window", async ($, on) => {
  const seen = engine(on, {});
  // A model window of 200k: threshold 200000 - 20000 - 13000 = 167000, line 137000.
  await $.session.measure(measure(136_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(0);
  await $.session.measure(measure(138_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
  expect(asked(seen)[0]!.text).toContain("`majordomus handover`");
  expect(asked(seen)[0]!.text).toContain("# Next Action");
  await $.session.measure(measure(160_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("re-arms when the fill falls below half the line (a compaction or /clear made a new window)", async ($, on) => {
  const seen = engine(on, {});
  await $.session.measure(measure(140_000, 200_000));
  await $.session.measure(measure(30_000, 200_000));
  await $.session.measure(measure(140_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(2);
});

test("the 1M model window with CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 asks at the 200k line, not the 1M one", async ($, on) => {
  const seen = engine(on, { env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" } });
  await $.session.measure(measure(150_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("autoCompactWindow in settings lowers the line the same way", async ($, on) => {
  const seen = engine(on, { settings: { autoCompactWindow: 200_000 } });
  await $.session.measure(measure(150_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("a 1M window with no override asks near its own threshold only", async ($, on) => {
  const seen = engine(on, {});
  await $.session.measure(measure(900_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(0);
  await $.session.measure(measure(940_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("the client's own threshold wins when it reports one", async ($, on) => {
  const seen = engine(on, { clientThreshold: 100_000 });
  await $.session.measure(measure(75_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("not supervised: never asks, never warns, never runs the binary", async ($, on) => {
  const seen = engine(on, { supervised: false });
  await $.session.start(start(true));
  await $.session.measure(measure(190_000, 200_000));
  await $.prompt.submit(prompt("go on"));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(0);
  expect(warnings(seen).length).toBe(0);
  expect(seen.runs.length).toBe(0);
  expect(seen.registered).toEqual([]);
});

test("a handover already written in this window: not asked", async ($, on) => {
  const seen = engine(on, {});
  await $.tool.call({ tool: "Bash", command: "majordomus handover < body.md" });
  await $.session.measure(measure(150_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(0);
});

test("a read-only handover command does not count as written", async ($, on) => {
  const seen = engine(on, {});
  await $.tool.call({ tool: "Bash", command: "majordomus handover --resolve" });
  await $.session.measure(measure(150_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
});

test("one warning per window: past the warning point the next prompt carries it, once; a compaction re-arms it", async ($, on) => {
  const seen = engine(on, {});
  // 200k: threshold 167000, line 137000, warning 137000 - 16384 = 120616.
  await $.session.measure(measure(120_000, 200_000));
  await $.prompt.submit(prompt("first"));
  expect(warnings(seen).length).toBe(0);
  await $.session.measure(measure(121_000, 200_000));
  // A slash command's submission does not take it; the next real prompt does.
  await $.prompt.submit(prompt("/status", { command: { name: "status", args: "" } }));
  expect(warnings(seen).length).toBe(0);
  await $.prompt.submit(prompt("second"));
  expect(warnings(seen).length).toBe(1);
  expect(warnings(seen)[0]!.text).toBe("second");
  expect(warnings(seen)[0]!.context.join("\n")).toContain("Then end your turn");
  await $.session.measure(measure(125_000, 200_000));
  await $.prompt.submit(prompt("third"));
  expect(warnings(seen).length).toBe(1);
  // A compaction (the client's own summary here: the fresh window is off) starts a new window.
  await $.session.compact({ trigger: "auto", messages: [user("x", "h1")] });
  await $.session.measure(measure(122_000, 200_000));
  await $.prompt.submit(prompt("fourth"));
  expect(warnings(seen).length).toBe(2);
});

test("one ask per window: a warning not yet delivered gives way to the request, which carries no warning, and none follows", async ($, on) => {
  const seen = engine(on, {});
  // Past the warning point (120616) and the line (137000) before any prompt: the request alone asks.
  await $.session.measure(measure(121_000, 200_000));
  await $.session.measure(measure(140_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
  expect(warnings(seen).length).toBe(0);
  await $.prompt.submit(prompt("next"));
  expect(warnings(seen).length).toBe(0);
  expect(seen.prompts.filter((p) => p.context.length > 0).length).toBe(0);
});

test("the ask's figures are against the window its threshold was derived from, not the model's 1M", async ($, on) => {
  const seen = engine(on, { env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000" } });
  // 100000 - 20000 - 13000 = 67000; the line 37000.
  await $.session.measure(measure(60_000, 1_000_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
  expect(asked(seen)[0]!.text).toContain(
    "Your context window holds 60000 tokens; Claude Code compacts it at about 67000 (90% of the way there).",
  );
  expect(asked(seen)[0]!.text).not.toContain("6%");
});

test("fresh window on: an automatic compaction is answered with the boot, the current prompt kept, no summary made", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  await $.session.start(start(false));
  const messages = [
    user("earlier", "h1"),
    { role: "assistant", text: "done", toolUses: [], handle: "h2" } as SessionMessage,
    user("the prompt of this turn", "h3"),
  ];
  const result = await $.session.compact({ trigger: "auto", messages });
  expect(seen.summaries).toBe(0);
  expect(result.messages?.length).toBe(2);
  expect(result.messages?.[0]).toMatchObject({ role: "user", text: BOOT });
  expect(result.messages?.[1]).toMatchObject({ handle: "h3", text: "the prompt of this turn" });
  // The binary was asked for the boot with the client's hook environment (so the checkpoint lands in this session's episode).
  expect(boots(seen).length).toBe(1);
  expect(boots(seen)[0]!.argv.slice(1)).toEqual([
    "capture",
    "window",
    "--action",
    "boot",
    "--trigger",
    "auto",
    "--repo",
    "/repo",
  ]);
  expect(boots(seen)[0]!.env.CLAUDE_CODE_SESSION_ID).toBe("cc-1");
});

test("fresh window on: a prompt-too-long compaction (all messages, the new prompt last) is answered the same way", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const messages = [
    user("a", "h1"),
    { role: "assistant", text: "b", toolUses: [], handle: "h2" } as SessionMessage,
    user("c", "h3"),
    { role: "assistant", text: "d", toolUses: [], handle: "h4" } as SessionMessage,
    user("the new, too long prompt", "h5"),
  ];
  const result = await $.session.compact({ trigger: "auto", messages });
  expect(seen.summaries).toBe(0);
  expect(result.messages?.map((m) => m.handle ?? m.text)).toEqual([BOOT, "h5"]);
});

test("a retried compaction reuses the window's boot: the binary is asked once", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  const again = await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  expect(again.messages?.[0]?.text).toBe(BOOT);
  expect(boots(seen).length).toBe(1);
  // After a turn of the new window, the next compaction is a new one.
  await $.turn.complete(turnDone());
  await $.session.compact({ trigger: "auto", messages: [user("q", "h2")] });
  expect(boots(seen).length).toBe(2);
});

test("/compact is vetoed with a notice naming /fresh-window; with fresh_window_manual: summary the client summarizes", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const vetoed = await $.session.compact({ trigger: "manual", messages: [user("p", "h1")] });
  expect(vetoed.skip).toBe(VETO);
  expect(VETO).toContain("/fresh-window");
  expect(seen.summaries).toBe(0);
  expect(boots(seen).length).toBe(0);
});

test("fresh_window_manual: summary lets /compact summarize", async ($, on) => {
  const seen = engine(on, { fresh: { on: true, manual: "summary" } });
  const result = await $.session.compact({ trigger: "manual", messages: [user("p", "h1")] });
  expect(result.messages?.[0]?.text).toBe("SUMMARY");
  expect(seen.summaries).toBe(1);
});

test("a boot that cannot be built falls back to Claude Code's own summary, and says so once", async ($, on) => {
  const seen = engine(on, { fresh: { on: true, boot: null } });
  const first = await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  expect(first.messages?.[0]?.text).toBe("SUMMARY");
  expect(seen.summaries).toBe(2);
  expect(seen.logs.filter((l) => l.includes("boot could not be built")).length).toBe(1);
});

test("a subagent's compaction and a precompute are left to the client; nothing is asked of the binary", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const sub = await $.session.compact({ trigger: "auto", agentId: "agent-1", messages: [user("p", "h1")] });
  const pre = await $.session.compact({ trigger: "precompute", messages: [user("p", "h1")] });
  expect(sub.messages?.[0]?.text).toBe("SUMMARY");
  expect(pre.messages?.[0]?.text).toBe("SUMMARY");
  expect(seen.runs.length).toBe(0);
});

test("fresh window off: every compaction is the client's own summary", async ($, on) => {
  const seen = engine(on, { fresh: { on: false } });
  const auto = await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  const manual = await $.session.compact({ trigger: "manual", messages: [user("p", "h1")] });
  expect(auto.messages?.[0]?.text).toBe("SUMMARY");
  expect(manual.messages?.[0]?.text).toBe("SUMMARY");
  expect(boots(seen).length).toBe(0);
});

test("margins come from the majordomus object of Claude Code's settings; a wrong type is ignored with one log line", async ($, on) => {
  const seen = engine(on, {
    settings: { majordomus: { handoverHeadroomTokens: 10_000, warningRunwayTokens: "lots" } },
  });
  // 200k: threshold 167000, line 167000 - 10000 = 157000; the runway stays 16384: warning 140616.
  await $.session.measure(measure(150_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(0);
  await $.prompt.submit(prompt("go on"));
  expect(warnings(seen).length).toBe(1);
  await $.session.measure(measure(158_000, 200_000));
  await seen.clock.settle();
  expect(asked(seen).length).toBe(1);
  expect(seen.logs.filter((l) => l.includes("majordomus.warningRunwayTokens must be a whole number")).length).toBe(1);
});

test("DISABLE_COMPACT: logged once at start, no fresh window, and /fresh-window refuses with exit 1", async ($, on) => {
  const seen = engine(on, { fresh: { on: true }, env: { DISABLE_COMPACT: "1" } });
  await $.session.start(start(true));
  await $.session.start(start(true));
  expect(seen.logs.filter((l) => l.includes("DISABLE_COMPACT")).length).toBe(1);
  const run = await $.command.run(freshWindow);
  expect(run).toMatchObject({ text: REFUSALS.disabled, exitCode: 1 });
  const compacted = await $.session.compact({ trigger: "auto", messages: [user("p", "h1")] });
  expect(compacted.messages?.[0]?.text).toBe("SUMMARY");
  expect(boots(seen).length).toBe(0);
});

test("/fresh-window in a headless session refuses with exit 1 and submits no turn", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const clock = seen.clock;
  await $.session.start(start(false));
  const run = await $.command.run(freshWindow);
  expect(run).toMatchObject({ text: REFUSALS.headless, exitCode: 1 });
  await clock.advance(100);
  expect(seen.prompts.length).toBe(0);
});

test("/fresh-window with the fresh window off names why, exit 1", async ($, on) => {
  engine(on, { fresh: { on: false } });
  await $.session.start(start(true));
  const run = await $.command.run(freshWindow);
  expect(run.exitCode).toBe(1);
  expect(run.text).toContain("does not set session.fresh_window: true");
});

test("/fresh-window while idle: one close-out turn, then the window resets through the mod's own compaction at turn.complete", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const clock = seen.clock;
  await $.session.start(start(true));
  expect(seen.registered).toEqual(["fresh-window"]);
  const run = await $.command.run(freshWindow);
  expect(run.exitCode).toBe(undefined);
  expect(run.text).toContain("closing out this window");
  expect(seen.prompts.length).toBe(0);
  await clock.advance(20);
  expect(seen.prompts.length).toBe(1);
  expect(seen.prompts[0]!.text).toContain("majordomus handover");
  expect(seen.prompts[0]!.text).toContain("Then end your turn");
  expect(boots(seen).length).toBe(0);
  await $.turn.start({ turnId: "t" } as never);
  await $.turn.complete(turnDone());
  // The reset ran the mod's own compaction hook (trigger plugin): the boot, not a summary.
  expect(boots(seen).length).toBe(1);
  expect(boots(seen)[0]!.argv).toContain("plugin");
  expect(seen.summaries).toBe(0);
});

test("/fresh-window while a turn runs: waits for it, then the close-out turn, then the reset", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const clock = seen.clock;
  await $.session.start(start(true));
  await $.turn.start({ turnId: "t1" } as never);
  const run = await $.command.run(freshWindow);
  expect(run.text).toContain("the running turn finishes first");
  await clock.advance(20);
  expect(seen.prompts.length).toBe(0);
  await $.turn.complete(turnDone());
  await seen.clock.settle();
  expect(seen.prompts.length).toBe(1);
  expect(seen.prompts[0]!.text).toContain("majordomus handover");
  expect(boots(seen).length).toBe(0);
  await $.turn.start({ turnId: "t2" } as never);
  await $.turn.complete(turnDone());
  expect(boots(seen).length).toBe(1);
});

test("an interrupted close-out turn resets nothing", async ($, on) => {
  const seen = engine(on, { fresh: { on: true } });
  const clock = seen.clock;
  await $.session.start(start(true));
  await $.command.run(freshWindow);
  await clock.advance(20);
  await $.turn.complete(turnDone("aborted"));
  expect(boots(seen).length).toBe(0);
  expect(seen.logs.some((l) => l.includes("close-out turn ended without an answer"))).toBe(true);
});

test("a subagent is refused the history tools; the main loop is not", async ($, on) => {
  const seen = engine(on, {});
  const sub = await $.tool.call({ tool: "mcp__majordomus__history_read", agentId: "agent-1" } as never);
  expect(sub.deny).toContain("refused in a subagent");
  const main = await $.tool.call({ tool: "mcp__majordomus__history_read", seq: 3 } as never);
  expect(main.deny).toBe(undefined);
  // The main loop's call names the current session (a resume gives the client a session id the server's environment does not know).
  expect(seen.calls.at(-1)).toMatchObject({ tool: "mcp__majordomus__history_read", seq: 3, session: "cc-now" });
});

test("the pure parts: thresholds, points, margins, what is kept of a compacted turn", () => {
  expect(deriveThreshold({ modelWindow: 100_000 })).toEqual({
    tokens: 67_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({ modelWindow: 200_000 })).toEqual({
    tokens: 167_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({ modelWindow: 1_000_000 })).toEqual({
    tokens: 967_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({ modelWindow: 1_000_000, envWindow: "200k" })).toEqual({
    tokens: 167_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({ modelWindow: 1_000_000, envWindow: "50000" })).toEqual({
    tokens: 67_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({ modelWindow: 200_000, pct: "50" })).toEqual({
    tokens: 90_000,
    source: "the client's documented formula",
  });
  // Automatic compaction off: the window less the output reserve, so the margins still apply.
  expect(deriveThreshold({ modelWindow: 200_000, disabled: "1" })).toEqual({
    tokens: 180_000,
    source: "auto-compaction is off: the window less the output reserve",
    autoOff: true,
  });
  expect(deriveThreshold({ modelWindow: 200_000, autoCompactEnabled: false, clientThreshold: 167_000 })).toMatchObject({
    tokens: 180_000,
    autoOff: true,
  });
  // An undocumented field of the wrong type degrades to the next source.
  expect(deriveThreshold({ modelWindow: 200_000, clientThreshold: "167000" })).toEqual({
    tokens: 167_000,
    source: "the client's documented formula",
  });
  expect(deriveThreshold({})).toBe(undefined);
  expect(lineFor(167_000)).toBe(137_000);
  expect(pointsFor(167_000)).toEqual({ warning: 120_616, line: 137_000, reset: 158_808, threshold: 167_000 });
  expect(readMargins({ majordomus: { resetMarginTokens: 4096 } }).margins.resetMarginTokens).toBe(4096);
  expect(readMargins({ majordomus: { resetMarginTokens: -1, other: 1 } }).ignored.length).toBe(2);
  expect(readMargins({ majordomus: "big" }).ignored.length).toBe(1);
  expect(readMargins({}).ignored).toEqual([]);
  expect(writesHandover("majordomus handover --derive --close")).toBe(true);
  expect(writesHandover("git status && majordomus handover --list")).toBe(false);
  const tool = {
    role: "user",
    text: "",
    toolUses: [],
    toolResults: [{ tool_use_id: "t", text: "ok", isError: false }],
    handle: "h3",
  } as unknown as SessionMessage;
  expect(
    currentPrompt([user("p", "h1"), { role: "assistant", text: "", toolUses: [], handle: "h2" }, tool])?.handle,
  ).toBe("h1");
  expect(currentPrompt([{ role: "assistant", text: "", toolUses: [], handle: "h2" }, tool])).toBe(undefined);
  expect(currentPrompt([user("p", "h1"), tool])?.handle).toBe("h1");
  expect(currentPrompt([user("p", "h1")])?.handle).toBe("h1");
});
