/**
 * Every command, loaded only when it runs. The build splits each into its own chunk, so a hook
 * invocation parses none of the others.
 */
import type { CommandDef } from "citty";

type Lazy = () => Promise<CommandDef<any>>;

export const COMMANDS = {
  init: () => import("./init.ts").then((m) => m.default),
  capture: () => import("./capture/index.ts").then((m) => m.default),
  doctor: () => import("./doctor.ts").then((m) => m.doctorCommand),
  policy: () => import("./policy.ts").then((m) => m.default),
  completion: () => import("./completion.ts").then((m) => m.default),
  start: () => import("./start.ts").then((m) => m.default),
  handover: () => import("./handover.ts").then((m) => m.default),
  checkpoint: () => import("./checkpoint.ts").then((m) => m.default),
  question: () => import("./question.ts").then((m) => m.default),
  decision: () => import("./decision.ts").then((m) => m.default),
  check: () => import("./doctor.ts").then((m) => m.checkCommand),
  finish: () => import("./finish.ts").then((m) => m.default),
  context: () => import("./context.ts").then((m) => m.default),
  session: () => import("./session.ts").then((m) => m.default),
  history: () => import("./history.ts").then((m) => m.default),
  report: () => import("./report.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  mcp: () => import("./mcp.ts").then((m) => m.default),
  recover: () => import("./recover.ts").then((m) => m.default),
} as const satisfies Record<string, Lazy>;

/** How `--help` groups them, in the order a person meets them: set up, work, read, repair. */
export const GROUPS = {
  init: "Set up",
  capture: "Set up",
  doctor: "Set up",
  policy: "Set up",
  completion: "Set up",
  start: "Work on a task",
  handover: "Work on a task",
  checkpoint: "Work on a task",
  question: "Work on a task",
  decision: "Work on a task",
  check: "Work on a task",
  finish: "Work on a task",
  context: "Read the account",
  session: "Read the account",
  history: "Read the account",
  report: "Read the account",
  serve: "Read the account",
  mcp: "Read the account",
  recover: "Repair",
} as const satisfies Record<keyof typeof COMMANDS, string>;

export type CommandName = keyof typeof COMMANDS;
