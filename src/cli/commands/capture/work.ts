/**
 * `capture work`: the derived half of a start, compact or end event, which the hook handed to a detached
 * copy of the binary so the client did not wait for it (see capture/handoff.ts). Started by the
 * hook, not by people; its outcome goes to the ledger (and the failure log), not to a terminal.
 */
import { hereForHook } from "./quiet.ts";
import { adapted } from "../../../providers/index.ts";
import type { HandedEvent } from "../../../capture/handoff.ts";
import { command } from "../../define.ts";

const HANDED: HandedEvent[] = ["start", "compact", "end"];

export default command({
  meta: { name: "work", description: "Finish the work a start, compact or end hook handed off (started by the hook itself)" },
  args: {
    provider: { type: "string", required: true, description: "The client, e.g. claude-code" },
    event: { type: "enum", options: HANDED, required: true, description: HANDED.join(", ") },
    ticket: { type: "string", required: true, description: "The hand-off's ticket in .ai/local/state/hook-work/" },
    repo: { type: "string", description: "The repository root (default: the current directory)" },
    "provider-session": { type: "string", description: "The client session the event named" },
    reason: { type: "string", description: "The end event's reason" },
    "fresh-episode": { type: "boolean", description: "The start event opened its episode: freeze its working context" },
  },
  async run({ args }) {
    const provider = await adapted(String(args.provider));
    const providerSession = args["provider-session"] === undefined ? undefined : String(args["provider-session"]);
    const ctx = await hereForHook(args.repo ?? process.cwd(), providerSession);
    if (!ctx) return;
    const event = args.event as HandedEvent;
    const { doHandedWork } = await import("../../../capture/session.ts");
    const reason = args.reason === undefined ? undefined : String(args.reason);
    await doHandedWork(ctx, { provider, event, payload: { bytes: 0 }, providerSession, reason }, String(args.ticket), args["fresh-episode"] === true);
  },
});
