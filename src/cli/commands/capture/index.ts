import { command } from "../../define.ts";
import { HOOK_COMMANDS } from "../../hooks.ts";

export default command({
  meta: { name: "capture", description: "Wire a coding client's hooks to majordomus, and answer them" },
  examples: ["majordomus capture install", "majordomus capture status"],
  subCommands: {
    install: () => import("./install.ts").then((m) => m.default),
    uninstall: () => import("./uninstall.ts").then((m) => m.default),
    status: () => import("./status.ts").then((m) => m.default),
    files: () => import("./files.ts").then((m) => m.default),
    prune: () => import("./prune.ts").then((m) => m.default),
    // What the client's hooks run: one table, which the CLI's edge also loads them from directly.
    ...HOOK_COMMANDS,
  },
});
