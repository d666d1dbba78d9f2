// A planned record's commit, in process on a real git repository and a real layer: the task's clock
// moves on the task record as it is when the record is written, never on the copy the plan carries.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { gatherGround, planRecord, writePlanned } from "../../src/lifecycle/records.ts";
import { RECORD_KINDS } from "../../src/records/kinds.ts";
import { activeTask, readTask } from "../../src/task/record.ts";
import { workspace } from "../../src/workspace/workspace.ts";
import { Repo } from "../support/repo.ts";

const BODY = "Parser half done; the tokenizer next.\n";

function withTask(): Repo {
  const repo = Repo.init();
  repo.commit("the project", "src/index.ts", "export const hello = 1;\n");
  expect(repo.mj(["init"]).status).toBe(0);
  expect(repo.mj(["start", "Fix the parser", "--scope", "src"]).status).toBe(0);
  return repo;
}

describe("writing a planned record", () => {
  test("the task's clock moves to the record's time, and the ledger line names the record", async () => {
    using repo = withTask();
    const ws = await workspace(repo.dir);
    const policy = await ws.policy();
    const ground = await gatherGround(ws);
    const task = ground.task!;
    const planned = planRecord(RECORD_KINDS.checkpoint, BODY, ground, policy, { how: "authored" });
    const written = await writePlanned(ws, planned);
    expect(written.task?.id).toBe(task.id);
    expect((await activeTask(ws.layer)).active?.checkpoint_at).toBe(written.record.meta.created_at);
    expect(repo.mj(["history", "--limit", "1"]).stdout).toContain(written.relativePath);
  });

  test("a task finished after the plan was made is not brought back; the record is still written", async () => {
    using repo = withTask();
    const ws = await workspace(repo.dir);
    const policy = await ws.policy();
    const planned = planRecord(RECORD_KINDS.checkpoint, BODY, await gatherGround(ws), policy, { how: "authored" });
    expect(planned.task).toBeDefined();
    // Another process finishes the task between the plan and the write.
    writeFileSync(
      repo.path("note.md"),
      "# Objective\nFix the parser.\n\n# Current State\nDone.\n\n# Next Action\nNothing; it ships.\n",
    );
    const finished = repo.mj(["finish", "--outcome", "completed", "--note", repo.path("note.md")]);
    expect(finished.status).toBe(0);
    const written = await writePlanned(ws, planned);
    expect(written.task).toBeUndefined();
    expect((await activeTask(ws.layer)).active).toBeUndefined();
    expect((await readTask(ws.layer)).task?.outcome ?? "archived").not.toBe("active");
    expect(readFileSync(written.record.path, "utf8")).toContain("Parser half done");
  });
});
