import { Failure, isFailure } from "../../lib/failure.ts";
import { workspace } from "../../workspace/workspace.ts";
import { doctor, remembers } from "../../health/doctor.ts";
import { reexecWith } from "../../lib/runtime.ts";
import { check } from "../../health/check.ts";
import { failing, render, type Finding } from "../../health/findings.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { err, out, outJson } from "../print.ts";

function report(findings: Finding[], json: boolean, what: string): void {
  const n = failing(findings);
  if (json) outJson("findings", { command: what, items: findings, failing: n });
  else for (const f of findings) out(render(f));
  if (n > 0)
    throw new Failure(
      "contract",
      `${what}: ${n} failing finding(s) of ${findings.length}`,
      "each line says what is wrong and how to reproduce it",
    );
}

export const doctorCommand = command({
  meta: {
    name: "doctor",
    description: "The layer's health: validity, privacy, records, lost work, declared wiring (exit 10 on any failure)",
  },
  examples: ["majordomus doctor", "majordomus doctor --fix", "majordomus doctor --json"],
  args: {
    all: {
      type: "boolean",
      description: "Also list hook failures a later event of the same kind has recovered (history)",
    },
    fix: {
      type: "boolean",
      description:
        "Then repair what the findings mark fixable (dead closes, stranded episodes, stale locks, " +
        "temp files) and report again",
    },
    ...jsonArg,
  },
  async run({ args }) {
    // Fixing writes, so it needs a layer that is safe to write (a private local half); where it is
    // not, doctor still reports, and its findings say why.
    let fix = args.fix === true;
    let refused: string | undefined;
    const readOnly = () =>
      workspace(process.cwd(), undefined, { readOnly: true }).catch((e: unknown) => {
        if (isFailure(e) && e.kind === "missing") return e;
        throw e;
      });
    const ws = fix
      ? await workspace().catch((e: unknown) => {
          if (isFailure(e) && e.kind === "missing") return e;
          if (!isFailure(e) || e.kind !== "refused") throw e;
          refused = e.message;
          fix = false;
          return readOnly();
        })
      : await readOnly();
    // A run that reads only what changed since the last one goes on without the JIT, a first one without its last tier
    // (see health/doctor.ts remembers): this process is replaced before it has said anything, so nothing is said twice.
    if (!isFailure(ws)) reexecWith(remembers(ws) ? "interpreter" : "no-ftl");
    if (refused !== undefined) err(`majordomus: nothing fixed: ${refused}`);
    // No layer here (never initialised, or removed): that is the report, not an error.
    if (isFailure(ws)) {
      const finding: Finding = {
        level: "FAIL",
        category: "layer",
        subject: ".ai",
        message: `${ws.message}; majordomus keeps no account of this repository yet`,
        reproduce: "majordomus init",
      };
      return report([finding], args.json === true, "doctor");
    }
    report(await doctor(ws, { all: args.all === true, fix }), args.json === true, "doctor");
  },
});

export const checkCommand = command({
  meta: {
    name: "check",
    description: "The active task against git, and what refuses acceptance (exit 10 on any failure)",
  },
  examples: ["majordomus check", "majordomus check --json"],
  args: { ...jsonArg },
  async run({ args }) {
    report(await check(await workspace(process.cwd(), undefined, { readOnly: true })), args.json === true, "check");
  },
});
