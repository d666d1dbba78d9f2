/**
 * `capture prompt`: what the client's UserPromptSubmit hook runs. Never exits 2 (that would make the client refuse the
 * person's prompt); prints on stdout only the notice that another session opened beside this one, once.
 */
import { log } from "../../../lib/log.ts";
import { Failure } from "../../../lib/failure.ts";
import { workspaceForHook } from "./quiet.ts";
import { adapted, calledByAnother } from "../../../providers/index.ts";
import { readPayload } from "../../../hooks/payload.ts";
import { envelope, payloadSession } from "../../../hooks/delivery.ts";
import { capturePrompt, promptContext } from "../../../hooks/prompt.ts";
import { command } from "../../define.ts";
import { out } from "../../print.ts";
import { hasClaims } from "../../../lifecycle/claim.ts";
import { env } from "../../../lib/env.ts";
import { workMode } from "../../modes.ts";

export default command({
  meta: { name: "prompt", description: "Archive the prompt a person sent (what the UserPromptSubmit shim runs)" },
  examples: ["majordomus capture prompt --provider claude-code < payload.json   # what the shim runs"],
  args: {
    provider: { type: "string", required: true, description: "The client, e.g. claude-code" },
    repo: { type: "string", description: "The repository root (the shims pass it; default: the current directory)" },
  },
  async run({ args }) {
    const provider = await adapted(String(args.provider));
    const payload = readPayload();
    const session = payloadSession(provider, payload);
    const by = calledByAnother(provider.hooks, session);
    if (by !== undefined) return log.debug(`a ${by} call of ${provider.id}'s hook: ${by}'s own hooks answer it`);
    const ws = await workspaceForHook(args.repo ?? process.cwd(), session, { hook: true });
    if (!ws) return;
    // The environment is read here, at the edge: below it the mode is an argument.
    const selfTestDir = env("MAJORDOMUS_CAPTURE_DIR") || undefined;
    const outcome = await capturePrompt(ws, provider, payload, { selfTestDir });
    if (outcome.status === "archived") log.debug(`prompt archived in ${outcome.path}`);
    if (outcome.status === "skipped") log.debug(`prompt not archived: ${outcome.why}`);
    if (outcome.status === "failed" && selfTestDir) throw new Failure("internal", outcome.why);
    // Another session opened beside this one: the model is told, once, beside the person's words.
    if (!selfTestDir) {
      const told = await promptContext(ws, provider).catch((err: Error) => {
        log.warn(`the notices of sessions beside this one were not handed over: ${err.message}`);
        return undefined;
      });
      if (told !== undefined) out(envelope(provider, told, "prompt"));
    }
    // A close an end event claimed and never wrote is finished by any later event, this one too.
    if (!selfTestDir && hasClaims(ws.layer))
      await (
        await import("../../../hooks/session.ts")
      )
        .keepClaimedCloses(ws, workMode())
        .catch((err: Error) => log.warn(`an unfinished close was not finished: ${err.message}`));
  },
});
