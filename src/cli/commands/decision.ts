import { wall } from "../../lib/clock.ts";
import { workspace } from "../../workspace/workspace.ts";
import { appendDecision } from "../../decisions/store.ts";
import { appendEvent } from "../../ledger/store.ts";
import { activeTask } from "../../task/record.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, outJson } from "../print.ts";

export default command({
  meta: { name: "decision", description: "Record a decision, with its reason, in decisions.md" },
  examples: ["majordomus decision \"keep the YAML format\" --why \"people edit it by hand\""],
  args: {
    title: { type: "positional", description: "The decision, in one line" },
    why: { type: "string", description: "Why it was made" },
    ...jsonArg,
  },
  async run({ args }) {
    const ctx = await workspace();
    const task = (await activeTask(ctx.layer)).active;
    const decision = appendDecision(ctx.layer, String(args.title), args.why, task?.id ?? "none", ctx.position.head, wall());
    await appendEvent(ctx, "decision.recorded", { task_id: decision.task, decision: decision.title });
    if (args.json) outJson("decision", { decision });
    else out(`recorded: ${decision.date} — ${decision.title} (task ${decision.task}, head ${decision.head.slice(0, 12)})`);
  },
});
