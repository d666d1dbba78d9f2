// Which compressions of an advisory client (Gemini) its checkpoints already answered, read from
// the ledger newest first: the highest count on a checkpoint of any episode of that client session.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compressionsAnswered, compressionsIn } from "../../src/capture/compression.ts";
import type { Workspace } from "../../src/workspace/workspace.ts";

const ENVELOPE = { head: "NONE", branch: "main", by: "majordomus/test" };
const started = (ts: string, episode: string, client: string) => ({ ts, event: "session.started", ...ENVELOPE, session: episode, session_id: episode, provider_session: client });
const checkpoint = (ts: string, episode: string, compressions?: number) => ({ ts, event: "task.checkpoint", ...ENVELOPE, session: episode, task_id: "none", checkpoint_path: "x.md", how: "derived", ...(compressions === undefined ? {} : { compressions }) });

function answered(lines: object[], client: string): number {
  const dir = mkdtempSync(join(tmpdir(), "majordomus-compression-"));
  try {
    const path = join(dir, "ledger.jsonl");
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    return compressionsAnswered({ ledger: { path } } as unknown as Workspace, client);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("compressionsAnswered", () => {
  test("none answered yet: 0; a checkpoint without a count answers none", () => {
    expect(answered([started("2026-01-01T00:00:00.000Z", "s-1", "g-1"), checkpoint("2026-01-01T00:01:00.000Z", "s-1")], "g-1")).toBe(0);
  });

  test("the resumed episode's own answer, when it has one; else the earlier episode's of the same client session", () => {
    const first = [started("2026-01-01T00:00:00.000Z", "s-1", "g-1"), checkpoint("2026-01-01T00:01:00.000Z", "s-1", 1), checkpoint("2026-01-01T00:02:00.000Z", "s-1", 2)];
    const resumed = started("2026-01-01T00:03:00.000Z", "s-2", "g-1");
    expect(answered([...first, resumed], "g-1")).toBe(2);
    expect(answered([...first, resumed, checkpoint("2026-01-01T00:04:00.000Z", "s-2", 3)], "g-1")).toBe(3);
  });

  test("another client session's compressions are not this one's", () => {
    const other = [started("2026-01-01T00:00:00.000Z", "s-9", "g-other"), checkpoint("2026-01-01T00:01:00.000Z", "s-9", 7)];
    expect(answered([...other, started("2026-01-01T00:02:00.000Z", "s-1", "g-1")], "g-1")).toBe(0);
    expect(answered([...other, started("2026-01-01T00:02:00.000Z", "s-1", "g-1"), checkpoint("2026-01-01T00:03:00.000Z", "s-1", 1)], "g-1")).toBe(1);
  });
});

describe("compressionsIn", () => {
  test("counts the distinct snapshot messages of the client's transcript, not other messages that mention one", () => {
    const dir = mkdtempSync(join(tmpdir(), "majordomus-compression-"));
    try {
      const path = join(dir, "chat.jsonl");
      const snapshot = (id: string) => JSON.stringify({ id, timestamp: "2026-01-01T00:00:00.000Z", type: "user", content: [{ text: "<state_snapshot>\n<overall_goal>x</overall_goal>" }] });
      const lines = [
        JSON.stringify({ id: "m-1", timestamp: "2026-01-01T00:00:00.000Z", type: "user", content: [{ text: "what is a <state_snapshot>?" }] }),
        snapshot("c-1"),
        JSON.stringify({ id: "m-2", timestamp: "2026-01-01T00:00:01.000Z", type: "gemini", content: [{ text: "<state_snapshot> is how I compress" }] }),
        snapshot("c-2"),
        snapshot("c-2"),
      ];
      writeFileSync(path, `${lines.join("\n")}\n`);
      expect(compressionsIn({ data: { transcript_path: path }, bytes: 0 })).toBe(2);
      writeFileSync(path, `${lines[0]}\n`);
      expect(compressionsIn({ data: { transcript_path: path }, bytes: 0 })).toBe(0);
      expect(compressionsIn({ data: { transcript_path: join(dir, "missing.jsonl") }, bytes: 0 })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
