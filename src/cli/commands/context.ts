import { Failure } from "../../lib/failure.ts";
import { gatherFacts } from "../../facts/gather.ts";
import { CONTEXT_NEEDS, contextView } from "../../views/context.ts";
import { workspace } from "../../workspace/workspace.ts";
import { intOption, jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, outJson } from "../print.ts";

export default command({
  meta: { name: "context", description: "Print everything the layer knows, in authority order, within a line budget (read-only)" },
  examples: ["majordomus context", "majordomus context --budget-lines 80"],
  args: {
    "budget-lines": { type: "string", description: "Line budget (default: the policy's context.builder_budget_lines)" },
    ...jsonArg,
  },
  async run({ args }) {
    const budget = intOption("budget-lines", args["budget-lines"]);
    if (budget === 0) throw new Failure("usage", "--budget-lines must be at least 1", "e.g. --budget-lines 120");
    const ctx = await workspace(process.cwd(), undefined, { readOnly: true });
    const built = contextView(await gatherFacts(ctx, CONTEXT_NEEDS), { budget });
    if (args.json) {
      const { lines: _lines, ...rest } = built;
      outJson("context", rest);
    } else out(built.lines.join("\n"));
    if (built.over) {
      throw new Failure("contract", `the context is ${built.budget.lines} lines, over the budget of ${built.budget.limit} even with everything droppable dropped`, "raise --budget-lines or context.builder_budget_lines; GIT, TASK and OPEN QUESTIONS are never dropped");
    }
  },
});
