/**
 * The two commands the client's hooks run. Both read the payload on stdin, never exit 2 (a 2 would
 * make the client refuse the prompt or report the hook as blocking), and print nothing on stdout
 * except the start event's briefing. A failure inside is recorded, not raised.
 */
import { log } from "../../../lib/log.ts";
import { Failure } from "../../../lib/failure.ts";
import { here } from "../../../layer/here.ts";
import { HOOK_EVENTS, adapted } from "../../../providers/index.ts";
import { readPayload } from "../../../capture/payload.ts";
import { capturePrompt } from "../../../capture/prompt.ts";
import { describeDelivery, handleSessionEvent, type SessionEvent } from "../../../capture/session.ts";
import { command } from "../../define.ts";

const SESSION_EVENTS = HOOK_EVENTS.filter((e) => e !== "prompt");

const repoArg = { repo: { type: "string", description: "The repository root (the shims pass it; default: the current directory)" } } as const;

export const session = command({
  meta: { name: "session", description: "Answer a client's session event (what the shims run): start, compact or end" },
  args: {
    provider: { type: "string", required: true, description: "The client, e.g. claude-code" },
    event: { type: "enum", options: [...SESSION_EVENTS], required: true, description: SESSION_EVENTS.join(", ") },
    ...repoArg,
  },
  async run({ args }) {
    const provider = await adapted(String(args.provider));
    const payload = readPayload();
    const delivery = describeDelivery(provider, args.event as SessionEvent, payload);
    if (process.env.MAJORDOMUS_DRY_RUN === "1") {
      log.info(`dry run: would ${delivery.event} the episode for ${provider.id} session ${delivery.providerSession}${delivery.reason ? `, reason ${delivery.reason}` : ""}${payload.problem ? ` (${payload.problem})` : ""}`);
      return;
    }
    const ctx = await here(args.repo ?? process.cwd(), delivery.providerSession);
    await handleSessionEvent(ctx, delivery);
  },
});

export const prompt = command({
  meta: { name: "prompt", description: "Archive the prompt a person sent (what the UserPromptSubmit shim runs)" },
  args: { provider: { type: "string", required: true, description: "The client, e.g. claude-code" }, ...repoArg },
  async run({ args }) {
    const provider = await adapted(String(args.provider));
    const payload = readPayload();
    const providerSession = payload.data ? (provider.hooks.keys.session.map((k) => payload.data![k]).find((v) => typeof v === "string") as string | undefined) : undefined;
    const ctx = await here(args.repo ?? process.cwd(), providerSession);
    const outcome = await capturePrompt(ctx, provider, payload);
    if (outcome.status === "archived") log.debug(`prompt archived in ${outcome.path}`);
    if (outcome.status === "skipped") log.debug(`prompt not archived: ${outcome.why}`);
    if (outcome.status === "failed" && process.env.MAJORDOMUS_CAPTURE_DIR) throw new Failure("internal", outcome.why);
  },
});
