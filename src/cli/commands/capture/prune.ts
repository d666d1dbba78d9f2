import { workspace } from "../../../workspace/workspace.ts";
import { prune } from "../../../hooks/prune.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { out, outJson } from "../../print.ts";

export default command({
  meta: {
    name: "prune",
    description: "Apply prompts.retention_* to the prompt archive (texts pruned; metadata and digests kept)",
  },
  examples: ["majordomus capture prune --dry-run", "majordomus capture prune"],
  args: { "dry-run": { type: "boolean", description: "Say what would be pruned, change nothing" }, ...jsonArg },
  async run({ args }) {
    const ws = await workspace();
    const result = await prune(ws, { dryRun: args["dry-run"] === true });
    if (args.json) return outJson("capture-prune", result);
    out(
      `${result.dry_run ? "would prune" : "pruned"} ${result.pruned} of ${result.records} prompt ` +
        `record(s); ${result.bytes_left} byte(s) of prompt text left`,
    );
  },
});
