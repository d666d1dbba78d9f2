/**
 * `capture work --ticket <name>`: the work a start, compact or end hook handed to a detached copy of the binary so the
 * client did not wait for it (see hooks/handoff.ts). The ticket is its only input. Started by the hook, not by people;
 * its outcome goes to the ledger (and the failure log), not to a terminal.
 */
import { workspaceForHook } from "./quiet.ts";
import { command } from "../../define.ts";

export default command({
  meta: {
    name: "work",
    description:
      "Finish the work a start, compact or end hook handed off, from its ticket (started by the hook itself)",
  },
  args: {
    ticket: {
      type: "string",
      required: true,
      description: "The hand-off's ticket in .ai/local/state/hook-work/ (its name, without .work)",
    },
    repo: { type: "string", description: "The repository root (default: the current directory)" },
  },
  async run({ args }) {
    const ws = await workspaceForHook(args.repo ?? process.cwd(), undefined);
    if (!ws) return;
    const { doHandedWork } = await import("../../../hooks/session.ts");
    await doHandedWork(ws, String(args.ticket));
  },
});
