import { workspace } from "../../workspace/workspace.ts";
import { OUTCOMES } from "../../task/record.ts";
import { finishTask } from "../../lifecycle/task.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, outJson } from "../print.ts";

export default command({
  meta: { name: "finish", description: "Finish the active task with an outcome and a note" },
  examples: [
    "majordomus finish --outcome completed",
    "majordomus finish --outcome partial --note notes.md   # notes.md: the note, in Markdown",
  ],
  args: {
    outcome: { type: "enum", options: [...OUTCOMES], required: true, description: `One of ${OUTCOMES.join(", ")}` },
    note: {
      type: "string",
      description: "The path of a Markdown file holding the note (default: the newest handover naming the task)",
    },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    const done = await finishTask(ws, { outcome: args.outcome as (typeof OUTCOMES)[number], note: args.note });
    if (args.json)
      outJson("task-finished", { task_id: done.task.id, outcome: done.task.outcome, note_path: done.notePath ?? null });
    else out(`finished ${done.task.id} as ${done.task.outcome}; note kept at ${done.notePath}`);
  },
});
