import { Failure } from "../../../lib/failure.ts";
import { workspace, type Workspace } from "../../../workspace/workspace.ts";
import { install, refusals } from "../../../wiring/install.ts";
import { foundTargets, printReports, targetsOf } from "./targets.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { err } from "../../print.ts";

/** What the person does after an install: commit exactly what it wrote, then start their client. */
async function nextSteps(ws: Workspace): Promise<void> {
  const { filesToCommit, gitAddLine } = await import("../../../wiring/files.ts");
  err(`majordomus: commit what it wrote (or run \`majordomus capture files\` to list it):`);
  err(`  ${gitAddLine(await filesToCommit(ws))}`);
  err(
    "majordomus: then start your client there and work as usual; `majordomus capture status` says what each " +
      "client will run",
  );
}

export default command({
  meta: {
    name: "install",
    description: "Write the hook shims, the client's hook configuration and the policy-switched mods",
  },
  examples: ["majordomus capture install", "majordomus capture install --provider claude-code --merge"],
  args: {
    provider: {
      type: "string",
      description: "Only this client (default: Claude Code, and every other adapted client found here or on PATH)",
    },
    merge: {
      type: "boolean",
      description: "Add our missing entries to an existing settings file (a backup is kept in .ai/local/backups/)",
    },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    const targets =
      args.provider !== undefined
        ? (await targetsOf(args.provider)).map((provider) => ({ provider, why: "--provider" }))
        : await foundTargets(ws.position.worktree);
    (await import("../../../wiring/binary.ts")).refuseUnrunnable(ws);
    for (const t of targets) if (args.provider === undefined) err(`majordomus: wiring ${t.provider.title}: ${t.why}`);
    // All or nothing: a configuration it would have to refuse stops the install before anything is written, for every client.
    const refused = targets.map(({ provider }) => ({
      provider: provider.id,
      ...refusals(ws, provider, args.merge === true),
    }));
    const reports = refused.some((r) => r.missing.length > 0)
      ? refused.map((r) => ({
          ...r,
          lines: [
            ...r.lines,
            {
              path: "(everything else)",
              action: "not written" as const,
              note: "nothing is written until every aspect can be wired",
            },
          ],
        }))
      : [];
    if (reports.length === 0)
      for (const { provider } of targets)
        reports.push({ provider: provider.id, ...(await install(ws, provider, { merge: args.merge === true })) });
    printReports(reports, args.json === true);
    const missing = reports.flatMap((r) => r.missing);
    if (missing.length === 0 && args.json !== true) await nextSteps(ws);
    if (missing.length > 0) {
      for (const m of missing) err(`  ${m.entry}`);
      throw new Failure(
        "refused",
        `nothing was written: the existing configuration lacks ${missing.length} majordomus hook ` +
          `entr${missing.length === 1 ? "y" : "ies"} (${missing.map((m) => m.event).join(", ")}); ` +
          `each is printed above, ready to paste`,
        "run `majordomus capture install --merge` to add exactly those (a backup of each file is " +
          "kept, and `capture uninstall` gives it back byte for byte), or paste them yourself and " +
          "run `capture install` again",
      );
    }
  },
});
