import { command } from "../define.ts";
import { Failure } from "../../lib/failure.ts";
import { now, parseSince } from "../../lib/clock.ts";
import { workspace } from "../../workspace/workspace.ts";
import { formatEntry } from "../../ledger/format.ts";
import { query, rotate, validateLedger } from "../../ledger/history.ts";
import { requireNumber } from "../../policy/index.ts";
import { exclusive, intOption, jsonArg } from "../args.ts";
import { out, err, outJson } from "../print.ts";

/** The fixed page size of `history` when --limit is not given: a CLI display choice, not policy. */
const DEFAULT_LIMIT = 20;

export default command({
  meta: { name: "history", description: "Show the ledger: what happened in this checkout, newest last" },
  examples: [
    "majordomus history --since 2h",
    "majordomus history --event session.closed --limit 5",
    "majordomus history --validate",
  ],
  args: {
    event: { type: "string", description: "Only this event (e.g. layer.initialized)" },
    since: { type: "string", description: "Only entries since 30m, 2h, 3d or an ISO time" },
    limit: { type: "string", description: `Newest N entries (default ${DEFAULT_LIMIT})` },
    validate: { type: "boolean", description: "Report malformed lines and unknown events (exit 10 if any)" },
    rotate: {
      type: "boolean",
      description: "Move all but the newest ledger.retention_max_lines lines into a dated archive",
    },
    ...jsonArg,
  },
  async run({ args }) {
    exclusive(args, ["validate", "rotate"]);
    const filters = ["event", "since", "limit"].filter((k) => args[k] !== undefined);
    if ((args.validate || args.rotate) && filters.length > 0) {
      throw new Failure(
        "usage",
        `--${args.validate ? "validate" : "rotate"} works on the whole ledger and takes no --${filters[0]}`,
        "drop the filter",
      );
    }
    const ws = await workspace(process.cwd(), undefined, { readOnly: !args.rotate });
    if (args.validate) return printValidation(ws.ledger, args.json === true);
    if (args.rotate) {
      const keep = requireNumber(await ws.policy(), "ledger.retention_max_lines");
      const result = await rotate(ws, keep);
      if (args.json) outJson("history-rotate", result);
      else if (result.rotated)
        out(
          `archived ${result.archived} line(s) into ${result.archive}; kept the ` +
            `newest ${result.kept} and this rotation's own line`,
        );
      else out(`nothing to rotate: ${result.lines} line(s), retention keeps ${result.keep}`);
      return;
    }
    let since: Date | undefined;
    if (args.since !== undefined) {
      since = parseSince(String(args.since), now());
      if (!since)
        throw new Failure(
          "usage",
          `--since must be a duration like 30m, 2h, 3d or an ISO time (got ${JSON.stringify(args.since)})`,
          "e.g. --since 2h",
        );
    }
    const limit = intOption("limit", args.limit) ?? DEFAULT_LIMIT;
    const result = await query(ws.ledger, { event: args.event, since, limit });
    if (args.json)
      outJson("history", { items: result.entries.map((row) => row.entry), skipped_malformed: result.malformed });
    else for (const row of result.entries) out(formatEntry(row.entry));
    if (result.malformed > 0)
      err(`majordomus: skipped ${result.malformed} malformed ledger line(s); run \`majordomus history --validate\``);
  },
});

async function printValidation(ledger: Parameters<typeof validateLedger>[0], json: boolean): Promise<void> {
  const report = await validateLedger(ledger);
  const reproduce = "majordomus history --validate";
  const findings = report.findings.map((f) => ({
    level: "FAIL",
    category: "ledger",
    subject: `${ledger.path}:${f.line}`,
    message: f.problem,
    reproduce,
  }));
  if (report.findings.length === 0)
    findings.push({
      level: "OK",
      category: "ledger",
      subject: ledger.path,
      message: `${report.lines} line(s), all well-formed and registered`,
      reproduce,
    });
  if (json) outJson("findings", { command: "history --validate", items: findings, failing: report.findings.length });
  else
    for (const f of findings)
      out(`${f.level} ledger ${f.subject} — ${f.message}${f.level === "FAIL" ? `  [reproduce: ${reproduce}]` : ""}`);
  if (report.findings.length > 0) {
    throw new Failure(
      "contract",
      `${ledger.path}: ${report.findings.length} problem(s) in ${report.lines} line(s)`,
      "malformed lines are skipped by every reader; move them out by hand if they are noise",
    );
  }
}
