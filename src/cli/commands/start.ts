import { workspace } from "../../workspace/workspace.ts";
import { startTask } from "../../lifecycle/task.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, err, outJson } from "../print.ts";

export default command({
  meta: { name: "start", description: "Start a task in this checkout (one active task at a time)" },
  examples: [
    'majordomus start "make the greeting configurable" --scope src',
    'majordomus start "fix the flaky test" --scope test,src/net',
  ],
  args: {
    task: { type: "positional", description: "What the task is, in one line" },
    scope: {
      type: "string",
      required: true,
      description: "Paths the task may touch, comma-separated (. for everything)",
    },
    profile: { type: "string", description: "Work profile name (default implementation)" },
    owner: { type: "string", description: "Who owns the task (default $USER)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    const started = await startTask(ws, {
      task: String(args.task),
      scope: String(args.scope),
      profile: args.profile,
      owner: args.owner,
    });
    const t = started.task;
    if (args.json) outJson("task", { task: t });
    else out(`started ${t.id}  profile=${t.profile}  scope=${t.scope.join(",")}`);
    if (started.archived) err(`majordomus: the previous task record was moved to ${started.archived}`);
    err(
      "majordomus: next: `majordomus handover --resolve` shows what the last session left; " +
        "`majordomus context` the whole picture",
    );
  },
});
