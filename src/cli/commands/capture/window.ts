/**
 * `capture window --action status|boot`: what the Claude Code mod asks about the client's context window (see
 * hooks/window.ts). Run by the mod with the client's hook environment, so the episode is the client session's own. Like
 * every hook command it never exits 2; its answer is one JSON document on stdout, a refusal included.
 */
import { workspaceForHook } from "./quiet.ts";
import { command } from "../../define.ts";
import { outJson } from "../../print.ts";

export default command({
  meta: {
    name: "window",
    description:
      "Answer the Claude Code mod about the context window: the fresh window's switch, or the " +
      "boot that replaces a compaction",
  },
  examples: [
    "CLAUDE_CODE_SESSION_ID=<id> majordomus capture window --action status   # what the mod runs at session start",
  ],
  args: {
    action: {
      type: "enum",
      options: ["status", "boot"],
      required: true,
      description: "status (writes nothing) or boot (checkpoint, next window, the boot text)",
    },
    trigger: {
      type: "string",
      description: "The client's compaction trigger (auto, manual, plugin), recorded with the window",
    },
    repo: { type: "string", description: "The repository root (default: the current directory)" },
  },
  async run({ args }) {
    const action = args.action as "status" | "boot";
    const ws = await workspaceForHook(args.repo ?? process.cwd(), undefined);
    if (!ws) {
      const off = { on: false, asked: false, why: "this checkout is not supervised by majordomus" };
      return outJson("window", {
        action,
        ok: false,
        why: off.why,
        fresh_window: off,
        manual: "veto",
        episode: null,
        window: null,
        window_id: null,
        transcript: false,
      });
    }
    const { windowAnswer } = await import("../../../hooks/window.ts");
    const trigger = typeof args.trigger === "string" && /^[a-z_-]{1,20}$/.test(args.trigger) ? args.trigger : undefined;
    outJson("window", { ...(await windowAnswer(ws, action, trigger)) });
  },
});
