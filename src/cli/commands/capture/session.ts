/**
 * `capture session`: what the client's session hooks run. Never exits 2 (to a client a 2 means
 * "block"); prints nothing on stdout but the start event's briefing; a failure inside is recorded.
 */
import { log } from "../../../lib/log.ts";
import { workspaceForHook } from "./quiet.ts";
import { adapted, calledByAnother } from "../../../providers/index.ts";
import { HOOKS, eventsAnsweredBy } from "../../../providers/hooks.ts";
import { readPayload } from "../../../hooks/payload.ts";
import { describeHookCall, envelope, type SessionEvent } from "../../../hooks/delivery.ts";
import { command } from "../../define.ts";
import { out } from "../../print.ts";
import { env } from "../../../lib/env.ts";
import { workMode } from "../../modes.ts";

const SESSION_EVENTS = eventsAnsweredBy("session");

export default command({
  meta: { name: "session", description: "Answer a client's session event (what the shims run): start, compact or end" },
  examples: ["majordomus capture session --provider claude-code --event start < payload.json   # what the shims run"],
  args: {
    provider: { type: "string", required: true, description: "The client, e.g. claude-code" },
    event: { type: "enum", options: [...SESSION_EVENTS], required: true, description: SESSION_EVENTS.join(", ") },
    repo: { type: "string", description: "The repository root (the shims pass it; default: the current directory)" },
    "git-status": {
      type: "string",
      description: "Where the start shim is collecting `git status` (read, then removed)",
    },
    "git-tracked": {
      type: "boolean",
      description: "The start shim is collecting `git ls-files` of the local half beside it (<git-status>.tracked)",
    },
  },
  async run({ args }) {
    const provider = await adapted(String(args.provider));
    const payload = readPayload();
    const call = describeHookCall(provider, args.event as SessionEvent, payload);
    const by = calledByAnother(provider.hooks, call.providerSession);
    if (by !== undefined) return log.debug(`a ${by} call of ${provider.id}'s hook: ${by}'s own hooks answer it`);
    if (env("MAJORDOMUS_DRY_RUN") === "1") {
      log.info(
        `dry run: would ${call.event} the episode for ${provider.id} session ${call.providerSession}${call.reason ? `, reason ${call.reason}` : ""}${payload.problem ? ` (${payload.problem})` : ""}`,
      );
      return;
    }
    // An event whose answer needs git status (the start's briefing): the workspace starts on it (from the shim's answer) at once.
    const startStatus = HOOKS[args.event as SessionEvent].startsStatus
      ? { answerFile: args["git-status"], tracked: args["git-tracked"] === true }
      : undefined;
    const ws = await workspaceForHook(args.repo ?? process.cwd(), call.providerSession, { startStatus, hook: true });
    if (!ws) return;
    const { handleSessionEvent } = await import("../../../hooks/session.ts");
    const briefing = await handleSessionEvent(ws, call, workMode());
    if (briefing !== undefined) out(envelope(provider, briefing));
  },
});
