import { workspace } from "../../../workspace/workspace.ts";
import { uninstall } from "../../../wiring/uninstall.ts";
import { printReports, targetsOf } from "./targets.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";

export default command({
  meta: {
    name: "uninstall",
    description: "Remove what capture install wrote (shims, our settings entries, the mod), and nothing else",
  },
  examples: ["majordomus capture uninstall", "majordomus capture uninstall --provider claude-code"],
  args: {
    provider: { type: "string", description: "Only this client (default: every adapted one)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    const reports = (await targetsOf(args.provider)).map((provider) => ({
      provider: provider.id,
      ...uninstall(ws, provider),
    }));
    printReports(reports, args.json === true);
  },
});
