// Which compressions of an advisory client (Gemini) its checkpoints already answered, read from
// the ledger newest first: the highest count on a checkpoint of any episode of that client session.
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compressionsAnswered, compressionsIn } from "../../src/hooks/compression.ts";
import type { Workspace } from "../../src/workspace/workspace.ts";

const ENVELOPE = { head: "NONE", branch: "main", by: "majordomus/test" };
const started = (ts: string, episode: string, client: string) => ({
  ts,
  event: "session.started",
  ...ENVELOPE,
  session: episode,
  session_id: episode,
  provider_session: client,
});
const checkpoint = (ts: string, episode: string, compressions?: number) => ({
  ts,
  event: "task.checkpoint",
  ...ENVELOPE,
  session: episode,
  task_id: "none",
  checkpoint_path: "x.md",
  how: "derived",
  ...(compressions === undefined ? {} : { compressions }),
});

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
    expect(
      answered(
        [started("2026-01-01T00:00:00.000Z", "s-1", "g-1"), checkpoint("2026-01-01T00:01:00.000Z", "s-1")],
        "g-1",
      ),
    ).toBe(0);
  });

  test("the resumed episode's own answer, when it has one; else the earlier episode's of the same client session", () => {
    const first = [
      started("2026-01-01T00:00:00.000Z", "s-1", "g-1"),
      checkpoint("2026-01-01T00:01:00.000Z", "s-1", 1),
      checkpoint("2026-01-01T00:02:00.000Z", "s-1", 2),
    ];
    const resumed = started("2026-01-01T00:03:00.000Z", "s-2", "g-1");
    expect(answered([...first, resumed], "g-1")).toBe(2);
    expect(answered([...first, resumed, checkpoint("2026-01-01T00:04:00.000Z", "s-2", 3)], "g-1")).toBe(3);
  });

  test("another client session's compressions are not this one's", () => {
    const other = [
      started("2026-01-01T00:00:00.000Z", "s-9", "g-other"),
      checkpoint("2026-01-01T00:01:00.000Z", "s-9", 7),
    ];
    expect(answered([...other, started("2026-01-01T00:02:00.000Z", "s-1", "g-1")], "g-1")).toBe(0);
    expect(
      answered(
        [...other, started("2026-01-01T00:02:00.000Z", "s-1", "g-1"), checkpoint("2026-01-01T00:03:00.000Z", "s-1", 1)],
        "g-1",
      ),
    ).toBe(1);
  });
});

/** A compression's snapshot message in Gemini's chat file, by its id. */
const snapshot = (id: string) =>
  JSON.stringify({
    id,
    timestamp: "2026-01-01T00:00:00.000Z",
    type: "user",
    content: [{ text: "<state_snapshot>\n<overall_goal>x</overall_goal>" }],
  });

describe("compressionsIn", () => {
  test("counts the distinct snapshot messages of the client's transcript, not other messages that mention one", () => {
    const dir = mkdtempSync(join(tmpdir(), "majordomus-compression-"));
    try {
      const path = join(dir, "chat.jsonl");
      const lines = [
        JSON.stringify({
          id: "m-1",
          timestamp: "2026-01-01T00:00:00.000Z",
          type: "user",
          content: [{ text: "what is a <state_snapshot>?" }],
        }),
        snapshot("c-1"),
        JSON.stringify({
          id: "m-2",
          timestamp: "2026-01-01T00:00:01.000Z",
          type: "gemini",
          content: [{ text: "<state_snapshot> is how I compress" }],
        }),
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

  test("with a memory, each turn reads only what the client appended: a new snapshot counts, bytes already read are not read again, a file cut short is read anew", () => {
    const dir = mkdtempSync(join(tmpdir(), "majordomus-compression-"));
    try {
      const path = join(dir, "chat.jsonl");
      const memory = join(dir, "memory");
      const filler = JSON.stringify({
        id: "f",
        timestamp: "2026-01-01T00:00:00.000Z",
        type: "gemini",
        content: [{ text: "z".repeat(5 * 1024 * 1024) }],
      });
      const payload = { data: { transcript_path: path }, bytes: 0 };
      writeFileSync(path, `${snapshot("c-1")}\n${filler}\n`);
      expect(compressionsIn(payload, memory)).toBe(1);
      appendFileSync(path, `${filler}\n${snapshot("c-2")}\n`);
      expect(compressionsIn(payload, memory)).toBe(2);
      // Bytes already read, changed in place (the same file, the same size): not read again.
      const fd = openSync(path, "r+");
      const planted = Buffer.from(snapshot("c-5"));
      writeSync(fd, planted, 0, planted.length, snapshot("c-1").length + 1000);
      closeSync(fd);
      expect(compressionsIn(payload, memory)).toBe(2);
      // Without the memory the whole file is read.
      expect(compressionsIn(payload)).toBe(3);
      // Cut short (the client wrote its history anew): read from its start.
      writeFileSync(path, `${snapshot("c-9")}\n`);
      expect(compressionsIn(payload, memory)).toBe(1);
      expect(readdirSync(memory).length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
