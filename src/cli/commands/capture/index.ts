import { command } from "../../define.ts";

export default command({
  meta: { name: "capture", description: "Wire a coding client's hooks to majordomus, and answer them" },
  examples: ["majordomus capture install", "majordomus capture status"],
  subCommands: {
    install: () => import("./install.ts").then((m) => m.default),
    uninstall: () => import("./uninstall.ts").then((m) => m.default),
    status: () => import("./status.ts").then((m) => m.default),
    prune: () => import("./prune.ts").then((m) => m.default),
    session: () => import("./session.ts").then((m) => m.default),
    prompt: () => import("./prompt.ts").then((m) => m.default),
    work: () => import("./work.ts").then((m) => m.default),
    window: () => import("./window.ts").then((m) => m.default),
  },
});
