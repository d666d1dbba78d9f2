import { workspace } from "../../../workspace/workspace.ts";
import { shownRows, status } from "../../../capture/status.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { err, out, outJson } from "../../print.ts";

export default command({
  meta: { name: "status", description: "How far each client's prompt, session and mod wiring goes (verified by executing the shims)" },
  examples: ["majordomus capture status", "majordomus capture status --all --no-verify"],
  args: {
    verify: { type: "boolean", default: true, description: "Execute the installed shims with a synthetic payload (--no-verify skips it)" },
    all: { type: "boolean", description: "Every client majordomus knows, not only the ones wired here" },
    ...jsonArg,
  },
  async run({ args }) {
    const ctx = await workspace(process.cwd(), undefined, { readOnly: true });
    const rows = await status(ctx, { verify: args.verify !== false });
    const shown = args.all ? rows : shownRows(rows);
    const hidden = rows.length - shown.length;
    if (args.json) return outJson("capture-status", { items: shown, hidden });
    for (const r of shown) out(`${`${r.provider}:${r.aspect}`.padEnd(20)} ${r.state.padEnd(13)} ${r.reason}`);
    if (hidden > 0) err(`(${hidden} row(s) of clients not wired here left out; --all shows them)`);
  },
});
