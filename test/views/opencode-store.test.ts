// Uptake from opencode's store (SQLite, read-only): a session's tool parts become actions; a store
// reached through a link, one outside opencode's folder, or one that is not SQLite is not provable.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratch } from "../support/repo.ts";
import { sessionActions } from "../../src/transcript/uptake.ts";

const ROOT = "/home/dev/project";

/** A store shaped as opencode 1.18.33 writes it: messages and their parts, each a JSON `data`. */
function store(path: string, session: string): void {
  const db = new Database(path);
  db.run(
    "create table message (id text primary key, session_id text, time_created integer, time_updated integer, data text)",
  );
  db.run(
    "create table part (id text primary key, message_id text, session_id text, time_created integer, time_updated integer, data text)",
  );
  const message = (id: string, role: string, t: number) =>
    db.run("insert into message values (?, ?, ?, ?, ?)", [id, session, t, t, JSON.stringify({ role })]);
  const part = (id: string, msg: string, t: number, data: object) =>
    db.run("insert into part values (?, ?, ?, ?, ?, ?)", [id, msg, session, t, t, JSON.stringify(data)]);
  message("m1", "user", 1);
  part("p1", "m1", 1, { type: "text", text: "go on" });
  message("m2", "assistant", 2);
  part("p2", "m2", 2, {
    type: "tool",
    tool: "read",
    state: { status: "completed", input: { filePath: `${ROOT}/a.ts` } },
  });
  part("p3", "m2", 3, { type: "step-finish", tokens: { output: 7 } });
  part("p4", "m2", 4, {
    type: "tool",
    tool: "write",
    state: { status: "completed", input: { filePath: `${ROOT}/src/ini.ts` } },
  });
  part("p5", "m2", 5, { type: "tool", tool: "bash", state: { status: "error", input: { command: "npm test" } } });
  part("p6", "m2", 6, {
    type: "tool",
    tool: "bash",
    state: { status: "completed", input: { command: "git status --short" } },
  });
  db.close();
}

describe("opencode's store", () => {
  test("a session's tool parts, in order, with the turn, the calls and the tokens before each; a failed call is not ok", async () => {
    const home = scratch("majordomus-opencode-store-");
    const was = process.env.XDG_DATA_HOME;
    try {
      process.env.XDG_DATA_HOME = home;
      mkdirSync(join(home, "opencode"));
      const db = join(home, "opencode", "opencode.db");
      store(db, "ses_1");
      const read = await sessionActions("opencode", db, "ses_1", [ROOT]);
      expect(read).toEqual({
        cut: false,
        actions: [
          { kind: "read", target: "a.ts", ok: true, turn: 1, calls: 0, tokens: 0 },
          { kind: "edit", target: "src/ini.ts", ok: true, turn: 1, calls: 1, tokens: 7 },
          { kind: "run", target: "npm test", ok: false, turn: 1, calls: 2, tokens: 7 },
          { kind: "run", target: "git status --short", ok: true, turn: 1, calls: 3, tokens: 7 },
        ],
      });
      // Another session of the same store: nothing of this one.
      expect(await sessionActions("opencode", db, "ses_2", [ROOT])).toEqual({ cut: false, actions: [] });

      // Outside opencode's folder, behind a link into it, or not SQLite: not read.
      store(join(home, "outside.db"), "ses_1");
      symlinkSync(join(home, "outside.db"), join(home, "opencode", "linked.db"));
      writeFileSync(
        join(home, "opencode", "noise.db"),
        Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 31) % 256)),
      );
      for (const path of [
        join(home, "outside.db"),
        join(home, "opencode", "linked.db"),
        join(home, "opencode", "noise.db"),
      ])
        expect({
          path: path.replace(home, "~"),
          read: "cause" in (await sessionActions("opencode", path, "ses_1", [ROOT])),
        }).toEqual({
          path: path.replace(home, "~"),
          read: true,
        });
    } finally {
      if (was === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = was;
      rmSync(home, { recursive: true, force: true });
    }
  });
});
