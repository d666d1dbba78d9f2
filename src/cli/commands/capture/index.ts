import { command } from "../../define.ts";
import { HOOK_COMMANDS } from "../../hooks.ts";

export default command({
  meta: { name: "capture", description: "Wire a coding client's hooks to majordomus, and answer them" },
  examples: ["majordomus capture install", "majordomus capture status"],
  subCommands: {
    install: () => import("./install.ts").then((m) => m.default),
    status: () => import("./status.ts").then((m) => m.default),
    files: () => import("./files.ts").then((m) => m.default),
    uninstall: () => import("./uninstall.ts").then((m) => m.default),
    prune: () => import("./prune.ts").then((m) => m.default),
    // What the client's hooks run: one table, which the CLI's edge also loads them from directly.
    ...HOOK_COMMANDS,
  },
  groups: {
    install: "Wire the clients",
    status: "Wire the clients",
    files: "Wire the clients",
    uninstall: "Wire the clients",
    prune: "Wire the clients",
    ...Object.fromEntries(
      Object.keys(HOOK_COMMANDS).map((k) => [k, "What the clients' hooks and mod run (not typed by hand)"]),
    ),
  },
});
