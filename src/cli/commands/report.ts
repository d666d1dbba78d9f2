import { Failure } from "../../lib/failure.ts";
import { readClosed } from "../../session/closed.ts";
import { uptakeLines, uptakeReport } from "../../views/uptake.ts";
import { workspace } from "../../workspace/workspace.ts";
import { intOption, jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { err, out, outJson } from "../print.ts";

export default command({
  meta: {
    name: "report",
    description: "Uptake of handed Next Actions over the last closed sessions, per client and per branch (read-only)",
  },
  examples: ["majordomus report", "majordomus report --last 200 --json"],
  args: {
    last: { type: "string", description: "How many of the newest closed session records (default 50)" },
    ...jsonArg,
  },
  async run({ args }) {
    const last = intOption("last", args.last) ?? 50;
    if (last < 1) throw new Failure("usage", "--last must be at least 1", "e.g. --last 100");
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const listing = await readClosed(ws, { limit: last });
    const report = uptakeReport(
      listing.records.map((r) => r.meta),
      last,
    );
    if (args.json) outJson("report", { ...report, rejected: listing.rejected });
    else {
      out(uptakeLines(report).join("\n"));
      for (const r of listing.rejected) err(`majordomus: ${r.path} was not counted: ${r.reason}`);
    }
  },
});
