import { Failure } from "../../lib/failure.ts";
import { workspace } from "../../workspace/workspace.ts";
import { recoverStranded } from "../../lifecycle/recover.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";

export default command({
  meta: { name: "recover", description: "Close stranded episodes (no event for session.stranded_after) as interrupted" },
  args: {
    "older-than": { type: "string", description: "Override session.stranded_after (30m, 24h, 3d)" },
    check: { type: "boolean", description: "Only report them (exit 10 when any are stranded)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ctx = await workspace();
    const result = await recoverStranded(ctx, { limit: Number.MAX_SAFE_INTEGER, olderThan: args["older-than"], check: args.check });
    if (!result.threshold) throw new Failure("missing", "the policy declares no session.stranded_after", "add it (e.g. `stranded_after: 24h`) or pass --older-than");
    if (args.json) console.log(JSON.stringify({ threshold: result.threshold, [args.check ? "stranded" : "recovered"]: result.closed.map((e) => e.session_id) }));
    else if (result.closed.length === 0) console.log(`no stranded episode (threshold ${result.threshold})`);
    else for (const e of result.closed) console.log(`${args.check ? "stranded" : "recovered"} ${e.session_id} (opened ${e.opened_at}${e.provider !== "none" ? `, ${e.provider} session ${e.provider_session}` : ""})`);
    if (args.check && result.closed.length > 0) throw new Failure("contract", `${result.closed.length} stranded episode(s)`, "`majordomus recover` closes them as interrupted");
  },
});
