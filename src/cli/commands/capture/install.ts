import { Failure } from "../../../lib/failure.ts";
import { workspace } from "../../../workspace/workspace.ts";
import { install } from "../../../capture/install.ts";
import { foundTargets, printReports, targetsOf } from "./targets.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { err } from "../../print.ts";

export default command({
  meta: { name: "install", description: "Write the hook shims, the client's hook configuration and the policy-switched mods" },
  examples: ["majordomus capture install", "majordomus capture install --provider claude-code --merge"],
  args: {
    provider: { type: "string", description: "Only this client (default: every adapted one)" },
    merge: { type: "boolean", description: "Add our missing entries to an existing settings file (a backup is kept in .ai/local/backups/)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ctx = await workspace();
    const targets = args.provider !== undefined ? (await targetsOf(args.provider)).map((provider) => ({ provider, why: "--provider" })) : await foundTargets(ctx.position.worktree);
    for (const t of targets) if (args.provider === undefined) err(`majordomus: wiring ${t.provider.title}: ${t.why}`);
    const reports = [];
    for (const { provider } of targets) reports.push({ provider: provider.id, ...(await install(ctx, provider, { merge: args.merge === true })) });
    printReports(reports, args.json === true);
    const missing = reports.flatMap((r) => r.missing);
    if (missing.length > 0) {
      for (const m of missing) err(`  ${m.entry}`);
      throw new Failure("refused", `the existing settings file lacks ${missing.length} majordomus hook entr${missing.length === 1 ? "y" : "ies"} (${missing.map((m) => m.event).join(", ")}); each is printed above, ready to paste`, "paste them under \"hooks\", or run `majordomus capture install --merge` to add exactly those (a backup is kept)");
    }
  },
});
