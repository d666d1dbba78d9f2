import { workspace } from "../../../workspace/workspace.ts";
import { status } from "../../../capture/status.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { out } from "../../print.ts";

export default command({
  meta: { name: "status", description: "How far each client's prompt, session and mod wiring goes (verified by executing the shims)" },
  examples: ["majordomus capture status", "majordomus capture status --no-verify"],
  args: { verify: { type: "boolean", default: true, description: "Execute the installed shims with a synthetic payload (--no-verify skips it)" }, ...jsonArg },
  async run({ args }) {
    const ctx = await workspace(process.cwd(), undefined, { readOnly: true });
    const rows = await status(ctx, { verify: args.verify !== false });
    if (args.json) return out(JSON.stringify({ schema: "capture-status/v1", rows }));
    for (const r of rows) out(`${`${r.provider}:${r.aspect}`.padEnd(20)} ${r.state.padEnd(13)} ${r.reason}`);
  },
});
