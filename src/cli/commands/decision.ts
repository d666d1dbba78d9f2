import { redactForWrite } from "../../lib/redact.ts";
import { wall } from "../../lib/clock.ts";
import { workspace } from "../../workspace/workspace.ts";
import { appendDecision, readDecisions } from "../../decisions/store.ts";
import { appendEvent } from "../../ledger/store.ts";
import { activeTask } from "../../task/record.ts";
import { jsonArg, limitArg, listLimit } from "../args.ts";
import { Failure } from "../../lib/failure.ts";
import { command } from "../define.ts";
import { olderLeftOut, out, outJson } from "../print.ts";

/** `decision list` lists; any other title is a decision to record (one titled "list" is given after `--`). */
const LIST = "list";

export default command({
  meta: {
    name: "decision",
    description: "Record a decision, with its reason, in decisions.md; `decision list` lists them",
  },
  examples: ['majordomus decision "keep the YAML format" --why "people edit it by hand"', "majordomus decision list"],
  args: {
    title: { type: "positional", description: "The decision, in one line (or `list`: the decisions, newest first)" },
    why: { type: "string", description: "Why it was made" },
    ...limitArg,
    ...jsonArg,
  },
  async run({ args, rawArgs }) {
    const listing = args.title === LIST && !rawArgs.includes("--");
    if (listing && args.why !== undefined)
      throw new Failure(
        "usage",
        "`decision list` takes no --why",
        'to record a decision titled list, give the title after --: `majordomus decision --why "…" -- list`',
      );
    const limit = listLimit(args.limit, listing, "`decision list`");
    if (listing) return list(limit, args.json === true);
    const ws = await workspace();
    const task = (await activeTask(ws.layer)).active;
    const decision = appendDecision(
      ws.layer,
      await redactForWrite(String(args.title), "decision"),
      args.why === undefined ? undefined : await redactForWrite(String(args.why), "decision's reason"),
      task?.id ?? "none",
      ws.position.head,
      wall(),
    );
    await appendEvent(ws, "decision.recorded", { task_id: decision.task, decision: decision.title });
    if (args.json) outJson("decision", { decision });
    else
      out(`recorded: ${decision.date} — ${decision.title} (task ${decision.task}, head ${decision.head.slice(0, 12)})`);
  },
});

/** The decisions of this checkout, newest first: `limit` of them (0: every one). */
async function list(limit: number, json: boolean): Promise<void> {
  const ws = await workspace(process.cwd(), undefined, { readOnly: true });
  const all = readDecisions(ws.layer).reverse();
  const items = limit > 0 ? all.slice(0, limit) : all;
  const more = items.length < all.length;
  if (json) return outJson("decision-list", { items, more });
  if (items.length === 0) return out("no decisions recorded in this checkout");
  for (const d of items)
    out(
      `${d.date} — ${d.title} (task ${d.task}, head ${d.head.slice(0, 12)})${d.why && d.why !== "not recorded" ? `: ${d.why}` : ""}`,
    );
  if (more) olderLeftOut(items.length);
}
