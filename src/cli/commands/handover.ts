import { relative } from "node:path";
import { Failure } from "../../lib/failure.ts";
import { log } from "../../lib/log.ts";
import { activeTask } from "../../task/record.ts";
import { workspace } from "../../workspace/workspace.ts";
import { gatherForRecords } from "../../facts/gather.ts";
import { deriveHandover, HANDOVER_NEEDS } from "../../views/derived.ts";
import { RECORD_KINDS } from "../../records/kinds.ts";
import { requiredSections, writeRecord } from "../../lifecycle/records.ts";
import { exclusive, jsonArg, limitArg, listLimit } from "../args.ts";
import { command } from "../define.ts";
import { printClaims, printListing, printRecord, printResolved } from "../records.ts";
import { readBody } from "../stdin.ts";
import { stdinIsTerminal } from "../../lib/stdin.ts";
import { consentHere } from "../../lifecycle/consent.ts";
import { out, outJson } from "../print.ts";

const KIND = RECORD_KINDS.handover;

export default command({
  meta: {
    name: "handover",
    description:
      "Write a handover (body on stdin: the Markdown sections # Objective, # Current State and # Next Action, " +
      "each required), or --derive one, or resolve and list handovers",
  },
  examples: [
    "majordomus handover < handover.md",
    "printf '# Objective\\nA parser.\\n\\n# Current State\\nThe tokenizer passes.\\n\\n# Next Action\\nWire it into src/cli.ts.\\n' | majordomus handover",
    "majordomus handover --derive",
    "majordomus handover --resolve",
    "majordomus handover --claims",
    "majordomus handover --show 20261130T115500000Z--000003--main--aaaaaaa.md",
    "majordomus handover --share < handover.md   # write it and share it through git",
    "majordomus handover --share --withdraw",
  ],
  args: {
    derive: {
      type: "boolean",
      description: "Compose the handover from the task record, the ledger, git and the open questions",
    },
    close: { type: "boolean", description: "Mark the active task handed over" },
    "no-task": { type: "boolean", description: "Do not attach the handover to the active task" },
    resolve: { type: "boolean", description: "Print the handover this checkout resolves to, with its labels" },
    path: { type: "boolean", description: "With --resolve: print only its path" },
    claims: {
      type: "boolean",
      description:
        "Print what the resolved handover cites (paths, symbols, commits, scripts), each checked against the tree now",
    },
    list: { type: "boolean", description: "List this checkout's handovers, newest first" },
    show: { type: "string", description: "Print one handover whole, by its file name (what a cut briefing names)" },
    share: {
      type: "boolean",
      description:
        "Share through git: copy this checkout's newest authored handover (or the one piped in, " +
        "written first), redacted, into .ai/repo/sessions/shared/ for a clone's briefing; commit " +
        "it with the work",
    },
    withdraw: { type: "boolean", description: "With --share: remove what this checkout shared for its branch" },
    ...limitArg,
    ...jsonArg,
  },
  async run({ args }) {
    exclusive(args, ["derive", "resolve", "list", "show", "share", "claims"]);
    if (args.withdraw && !args.share)
      throw new Failure("usage", "--withdraw goes with --share", "run `majordomus handover --share --withdraw`");
    const limit = listLimit(args.limit, args.list === true, "--list");
    const noTask = args["no-task"] === true;
    if (args.show !== undefined) {
      if (args.close || noTask)
        throw new Failure(
          "usage",
          "--close and --no-task apply only when writing a handover",
          "drop them, or drop --show",
        );
      return printRecord(KIND, await workspace(process.cwd(), undefined, { readOnly: true }), args.show, {
        json: args.json,
      });
    }
    if (args.claims) {
      if (args.close || noTask)
        throw new Failure(
          "usage",
          "--close and --no-task apply only when writing a handover",
          "drop them, or drop --claims",
        );
      return printClaims(await workspace(process.cwd(), undefined, { readOnly: true }), { json: args.json });
    }
    if ((args.resolve || args.list) && (args.close || noTask))
      throw new Failure(
        "usage",
        "--close and --no-task apply only when writing a handover",
        "drop them, or drop --resolve/--list",
      );
    if (args.close && noTask)
      throw new Failure(
        "usage",
        "--close and --no-task cannot be used together",
        "--close hands over the active task; --no-task writes a handover that names none",
      );
    const ws = await workspace(process.cwd(), undefined, { readOnly: args.resolve === true || args.list === true });
    if (args.resolve) return printResolved(KIND, ws, { path: args.path, json: args.json });
    if (args.list) return printListing(KIND, ws, { json: args.json, limit });
    const share = await import("../../lifecycle/share.ts");
    if (args.share && args.withdraw) {
      const gone = await share.withdrawShared(ws);
      if (args.json) return outJson("handover-withdrawn", { path: gone ?? null });
      if (gone) return out(gone);
      log.info(`this checkout had shared nothing for ${ws.position.branch}`);
      return;
    }
    const policy = await ws.policy();
    // `--share` with nothing piped in shares the newest authored handover this checkout has.
    const piped = !(args.share && stdinIsTerminal()) ? (args.derive ? "" : readBody("majordomus handover")) : "";
    if (args.share && !args.derive && piped.trim() === "") {
      const rel = await share.shareHandover(ws);
      if (args.json) return outJson("handover-shared", { path: rel });
      out(rel);
      log.info(`commit it with your work to hand it on: git add ${rel}`);
      return;
    }
    const body = args.derive
      ? deriveHandover(await gatherForRecords(ws, HANDOVER_NEEDS), requiredSections(policy))
      : piped;
    const written = await writeRecord(ws, KIND, body, policy, {
      how: args.derive ? "derived" : "authored",
      noTask,
      close: args.close,
    });
    // Shared as it is written: asked for now, or consented to for every authored handover in this checkout.
    const shared =
      !args.derive && (args.share || (await consentHere(ws.position, policy, "handover.share_authored")).on)
        ? await share.shareHandover(ws, written.record)
        : undefined;
    if (shared) log.info(`shared as ${shared}: commit it with your work to hand it on`);
    // Detached from an active task, the agent's words are not that task's account: a session end's
    // derived record for the task is resumed from instead. Said now, while it can still be redone.
    const active = noTask && !args.derive ? (await activeTask(ws.layer)).active : undefined;
    if (active)
      log.warn(
        `task ${active.id} is active and this handover names no task: once a session end writes ` +
          `the task's own record, the next briefing resumes from that, not from this; write it ` +
          `again without --no-task to have it followed`,
      );
    if (args.json)
      outJson("record-written", {
        kind: "handover",
        path: written.relativePath,
        task_id: written.record.meta.task_id,
        closed: args.close === true,
        created_at: written.record.meta.created_at,
        shared: shared ?? null,
      });
    else out(relative(process.cwd(), written.record.path) || written.relativePath);
  },
});
