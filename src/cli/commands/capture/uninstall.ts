import { workspace } from "../../../workspace/workspace.ts";
import { uninstall } from "../../../capture/uninstall.ts";
import { adapted, providers } from "../../../providers/index.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { out, outJson } from "../../print.ts";

export default command({
  meta: { name: "uninstall", description: "Remove what capture install wrote (shims, our settings entries, the mod), and nothing else" },
  examples: ["majordomus capture uninstall", "majordomus capture uninstall --provider claude-code"],
  args: {
    provider: { type: "string", description: "Only this client (default: every adapted one)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ctx = await workspace();
    const targets = args.provider ? [await adapted(String(args.provider))] : await Promise.all([...(await providers()).values()].filter((p) => p.hooks).map((p) => adapted(p.id)));
    const reports = targets.map((provider) => ({ provider: provider.id, ...uninstall(ctx, provider) }));
    if (args.json) return outJson("capture-install", { items: reports });
    for (const r of reports) for (const l of r.lines) out(`${l.action.padEnd(16)} ${l.path}${l.note ? ` — ${l.note}` : ""}`);
  },
});
