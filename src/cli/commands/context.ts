import { Failure } from "../../lib/failure.ts";
import { gatherFacts } from "../../facts/gather.ts";
import { CONTEXT_NEEDS, contextView } from "../../views/context.ts";
import { workspace } from "../../workspace/workspace.ts";
import { intOption, jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, outJson } from "../print.ts";

export default command({
  meta: {
    name: "context",
    description:
      "Print everything the layer knows, in authority order, within a line and a character budget (read-only)",
  },
  examples: ["majordomus context", "majordomus context --budget-lines 80", "majordomus context --budget-chars 40000"],
  args: {
    "budget-lines": { type: "string", description: "Line budget (default: the policy's context.builder_budget_lines)" },
    "budget-chars": {
      type: "string",
      description: "Character budget (default: the policy's context.builder_budget_chars, else 18000)",
    },
    ...jsonArg,
  },
  async run({ args }) {
    const budget = intOption("budget-lines", args["budget-lines"]);
    if (budget === 0) throw new Failure("usage", "--budget-lines must be at least 1", "e.g. --budget-lines 120");
    const chars = intOption("budget-chars", args["budget-chars"]);
    if (chars !== undefined && chars < 1000)
      throw new Failure("usage", "--budget-chars must be at least 1000", "e.g. --budget-chars 40000");
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const built = contextView(await gatherFacts(ws, CONTEXT_NEEDS), { budget, chars });
    if (args.json) {
      const { lines: _lines, ...rest } = built;
      outJson("context", rest);
    } else out(built.lines.join("\n"));
    if (built.over) {
      throw new Failure(
        "contract",
        `the context is ${built.budget.lines} lines and ${built.budget.chars} characters, over ` +
          `the budget of ${built.budget.limit} lines and ${built.budget.chars_limit} characters ` +
          `even with every section at its shortest`,
        "raise --budget-lines/--budget-chars or " +
          "context.builder_budget_lines/builder_budget_chars; the Next Action is never cut for " +
          "lines, and GIT, TASK and OPEN QUESTIONS always stay",
      );
    }
  },
});
