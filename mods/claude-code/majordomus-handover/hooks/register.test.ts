// The mod against Claude Code's own engine (`claude plugin test`): the engine beneath it is
// played by this file's hooks, with a repository that is (or is not) supervised.
import { expect, test } from "claude-code/testing";
import type { On, SessionMeasureInput } from "claude-code";
import { deriveThreshold, lineFor, writesHandover } from "./register";

type World = { supervised?: boolean; env?: Record<string, string>; clientThreshold?: number; settings?: Record<string, unknown> };

function engine(on: On, world: World): string[] {
  const asked: string[] = [];
  // Stand-ins for the calls the mod makes on `$` answer `{ value }`, what the call resolves to.
  on("session.root", () => ({ value: "/repo" }));
  on("fs.exists", ($, e) => ({ value: world.supervised !== false && e.path === "/repo/.ai/manifest.yaml" }));
  on("env.get", ($, e) => ({ value: world.env?.[e.name] }));
  on("settings.read", () => ({ value: (world.settings ?? {}) as never }));
  on("session.usage", () => ({ value: { startedAt: 0, context: { window: 1_000_000, breakdown: world.clientThreshold ? ({ autoCompactThreshold: world.clientThreshold, isAutoCompactEnabled: true } as never) : undefined }, rateLimits: [] } }));
  on("ui.toast", () => ({ value: undefined }));
  on("ui.log", () => ({ value: undefined }));
  on("prompt.submit", ($, e) => {
    asked.push(e.text);
    return { text: e.text };
  });
  // Events with results of their own (a prompt, a tool call) answer with that result.
  on("tool.call", () => ({ result: { stdout: "", stderr: "" } as never, text: "" }));
  // The engine's own answer to a measurement: it echoes what changed.
  on("session.measure", ($, e) => ({ changed: e.changed }));
  return asked;
}

const measure = (tokens: number, window: number): SessionMeasureInput => ({ context: { tokens, window, percent: Math.round((tokens / window) * 100) }, rateLimits: [], changed: ["context"] });

test("a 200k window: asks once past the line, not before, and not twice in one window", async ($, on) => {
  const asked = engine(on, {});
  // A model window of 200k: threshold 200000 - 20000 - 13000 = 167000, line 137000.
  await $.session.measure(measure(136_000, 200_000));
  expect(asked.length).toBe(0);
  await $.session.measure(measure(138_000, 200_000));
  expect(asked.length).toBe(1);
  expect(asked[0]).toContain("`majordomus handover`");
  expect(asked[0]).toContain("# Next Action");
  await $.session.measure(measure(160_000, 200_000));
  expect(asked.length).toBe(1);
});

test("re-arms when the fill falls below half the line (a compaction or /clear made a new window)", async ($, on) => {
  const asked = engine(on, {});
  await $.session.measure(measure(140_000, 200_000));
  await $.session.measure(measure(30_000, 200_000));
  await $.session.measure(measure(140_000, 200_000));
  expect(asked.length).toBe(2);
});

test("the 1M model window with CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 asks at the 200k line, not the 1M one", async ($, on) => {
  const asked = engine(on, { env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" } });
  await $.session.measure(measure(150_000, 1_000_000));
  expect(asked.length).toBe(1);
});

test("autoCompactWindow in settings lowers the line the same way", async ($, on) => {
  const asked = engine(on, { settings: { autoCompactWindow: 200_000 } });
  await $.session.measure(measure(150_000, 1_000_000));
  expect(asked.length).toBe(1);
});

test("a 1M window with no override asks near its own threshold only", async ($, on) => {
  const asked = engine(on, {});
  await $.session.measure(measure(900_000, 1_000_000));
  expect(asked.length).toBe(0);
  await $.session.measure(measure(940_000, 1_000_000));
  expect(asked.length).toBe(1);
});

test("the client's own threshold wins when it reports one", async ($, on) => {
  const asked = engine(on, { clientThreshold: 100_000 });
  await $.session.measure(measure(75_000, 1_000_000));
  expect(asked.length).toBe(1);
});

test("not supervised: never asks", async ($, on) => {
  const asked = engine(on, { supervised: false });
  await $.session.measure(measure(190_000, 200_000));
  expect(asked.length).toBe(0);
});

test("a handover already written in this window: not asked", async ($, on) => {
  const asked = engine(on, {});
  await $.tool.call({ tool: "Bash", command: "majordomus handover < body.md" });
  await $.session.measure(measure(150_000, 200_000));
  expect(asked.length).toBe(0);
});

test("a read-only handover command does not count as written", async ($, on) => {
  const asked = engine(on, {});
  await $.tool.call({ tool: "Bash", command: "majordomus handover --resolve" });
  await $.session.measure(measure(150_000, 200_000));
  expect(asked.length).toBe(1);
});

test("the threshold formula: 100k, 200k and 1M windows, overrides, and off", () => {
  expect(deriveThreshold({ modelWindow: 100_000 })).toEqual({ tokens: 67_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 200_000 })).toEqual({ tokens: 167_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 1_000_000 })).toEqual({ tokens: 967_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 1_000_000, envWindow: "200k" })).toEqual({ tokens: 167_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 1_000_000, envWindow: "50000" })).toEqual({ tokens: 67_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 200_000, pct: "50" })).toEqual({ tokens: 90_000, source: "the client's documented formula" });
  expect(deriveThreshold({ modelWindow: 200_000, disabled: "1" })).toEqual({ off: true, source: "auto-compaction is off" });
  expect(deriveThreshold({})).toBe(undefined);
  expect(lineFor(167_000)).toBe(137_000);
  expect(writesHandover("majordomus handover --derive --close")).toBe(true);
  expect(writesHandover("git status && majordomus handover --list")).toBe(false);
});
