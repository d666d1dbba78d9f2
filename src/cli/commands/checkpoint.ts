import { relative } from "node:path";
import { workspace } from "../../workspace/workspace.ts";
import { gatherForRecords } from "../../facts/gather.ts";
import { CHECKPOINT_NEEDS, deriveCheckpoint } from "../../views/derived.ts";
import { RECORD_KINDS } from "../../records/kinds.ts";
import { writeRecord } from "../../lifecycle/records.ts";
import { exclusive, jsonArg, limitArg, listLimit } from "../args.ts";
import { command } from "../define.ts";
import { printListing, printResolved } from "../records.ts";
import { readBody } from "../stdin.ts";
import { out, outJson } from "../print.ts";

const KIND = RECORD_KINDS.checkpoint;

export default command({
  meta: {
    name: "checkpoint",
    description: "Record progress (body on stdin, or --derive), or show and list checkpoints",
  },
  examples: [
    "majordomus checkpoint --derive",
    "majordomus checkpoint --show",
    "printf '# Progress\\nThe parser passes.\\n' | majordomus checkpoint",
  ],
  args: {
    derive: { type: "boolean", description: "Compose the body from git, the task record and the open questions" },
    show: { type: "boolean", description: "Print the checkpoint this checkout resolves to, with its labels" },
    path: { type: "boolean", description: "With --show: print only its path" },
    list: { type: "boolean", description: "List this checkout's checkpoints, newest first" },
    ...limitArg,
    ...jsonArg,
  },
  async run({ args }) {
    exclusive(args, ["derive", "show", "list"]);
    const limit = listLimit(args.limit, args.list === true, "--list");
    const ws = await workspace(process.cwd(), undefined, { readOnly: args.show === true || args.list === true });
    if (args.show) return printResolved(KIND, ws, { path: args.path, json: args.json });
    if (args.list) return printListing(KIND, ws, { json: args.json, limit });
    const policy = await ws.policy();
    const body = args.derive
      ? deriveCheckpoint(await gatherForRecords(ws, CHECKPOINT_NEEDS))
      : readBody("majordomus checkpoint");
    const written = await writeRecord(ws, KIND, body, policy, { how: args.derive ? "derived" : "authored" });
    if (args.json)
      outJson("record-written", {
        kind: "checkpoint",
        path: written.relativePath,
        task_id: written.record.meta.task_id,
        closed: false,
        created_at: written.record.meta.created_at,
      });
    else out(relative(process.cwd(), written.record.path) || written.relativePath);
  },
});
