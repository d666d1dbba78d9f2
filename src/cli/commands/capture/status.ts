import { workspace } from "../../../workspace/workspace.ts";
import { shownRows, status } from "../../../wiring/status.ts";
import { jsonArg } from "../../args.ts";
import { Failure } from "../../../lib/failure.ts";
import { newestDeliveries } from "../../../session/delivery.ts";
import { undelivered } from "../../../transcript/delivery.ts";
import { command } from "../../define.ts";
import { err, out, outJson } from "../../print.ts";

export default command({
  meta: {
    name: "status",
    description: "How far each client's prompt, session and mod wiring goes (verified by executing the shims)",
  },
  examples: ["majordomus capture status", "majordomus capture status --all --no-verify"],
  args: {
    verify: {
      type: "boolean",
      default: true,
      description: "Execute the installed shims with a synthetic payload (--no-verify skips it)",
    },
    all: { type: "boolean", description: "Every client majordomus knows, not only the ones wired here" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const rows = await status(ws, { verify: args.verify !== false });
    const shown = args.all ? rows : shownRows(rows);
    const hidden = rows.length - shown.length;
    // What reached the model the last time each wired client was briefed (recorded at its end).
    const wired = new Set(shown.map((r) => r.provider));
    const delivery = [...newestDeliveries(ws.layer).values()]
      .filter((d) => wired.has(d.provider))
      .map((d) => ({ provider: d.provider, state: d.delivery, cause: d.cause, episode: d.session, at: d.at }));
    const failing = delivery.filter((d) => undelivered(d));
    if (args.json) outJson("capture-status", { items: shown, hidden, delivery });
    else {
      for (const r of shown) out(`${`${r.provider}:${r.aspect}`.padEnd(20)} ${r.state.padEnd(13)} ${r.reason}`);
      for (const d of delivery)
        out(`${`${d.provider}:briefing`.padEnd(20)} ${d.state.padEnd(13)} ${d.cause} (episode ${d.episode}, ${d.at})`);
      if (hidden > 0) err(`(${hidden} row(s) of clients not wired here left out; --all shows them)`);
    }
    if (failing.length > 0)
      throw new Failure(
        "contract",
        `the newest briefing of ${failing.map((d) => d.provider).join(", ")} did not reach the ` +
          `model whole (${failing.map((d) => d.state).join(", ")})`,
        "`majordomus doctor` names the cause; keep what the start hook hands the client within " +
          "its budget (docs/delivery.md)",
      );
  },
});
