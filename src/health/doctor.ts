/**
 * `majordomus doctor`: the layer's health. Every record is read the way its reader reads it, every
 * declared wiring is proven by executing it, and every lost or failed piece of work the ledger
 * admits to is a finding. Read-only, apart from the wiring self-tests' throwaway folders; `--fix` is
 * a step of its own over the findings, after which the layer is diagnosed again.
 */
import type { Workspace } from "../workspace/workspace.ts";
import { mark } from "../lib/trace.ts";
import { gather, type Gathered } from "./gathered.ts";
import type { Finding } from "./findings.ts";
import * as layer from "./layer-checks.ts";
import * as work from "./work-checks.ts";
import { checkPrompts } from "./prompt-scan.ts";

export { remembers } from "./gathered.ts";

const promptsCheck = (g: Gathered) => checkPrompts(g.prompts.dir, g.ws.position.worktree, g.prompts.tree, g.verdicts);

type Check = {
  name: string;
  run: (g: Gathered) => Finding[] | Promise<Finding[]>;
  /** It reads files of the local half, whose modes the privacy check reports as those reads saw them. */
  reads?: true;
  /** It waits on processes (the shims it runs), so it starts before the others. */
  first?: true;
  repair?: (ws: Workspace, found: readonly Finding[]) => Finding[] | Promise<Finding[]>;
};

/** The checks, in the order their findings are said; they run concurrently. */
const CHECKS: Check[] = [
  { name: "manifest", run: layer.layerCheck },
  { name: "policy", run: layer.policyCheck },
  { name: "sections", run: layer.sectionsCheck },
  { name: "privacy", run: layer.privacyCheck },
  { name: "records", run: layer.recordsCheck, reads: true },
  { name: "closed records", run: async (g) => (await g.closed()).findings },
  { name: "contexts", run: layer.contextsCheck, reads: true },
  { name: "context log", run: layer.contextLogCheck },
  { name: "prompts", run: promptsCheck, reads: true },
  { name: "questions", run: layer.questionsCheck },
  { name: "decisions", run: layer.decisionsCheck },
  { name: "ledger", run: layer.ledgerCheck },
  { name: "lifecycle", run: work.lifecycleCheck },
  { name: "hand-offs", run: work.handOffCheck },
  { name: "deliveries", run: work.deliveryCheck },
  { name: "claims", run: work.claimsCheck, repair: work.repairClaims },
  { name: "temp files", run: work.tempsCheck, repair: work.repairTemps },
  { name: "locks", run: work.locksCheck, repair: work.repairLocks },
  { name: "open episodes", run: work.episodesCheck, repair: work.repairEpisodes },
  { name: "wiring", run: work.wiringCheck, first: true },
  { name: "planted binaries", run: work.strangerCheck },
];

async function diagnose(ws: Workspace, all: boolean): Promise<Finding[][]> {
  const g = gather(ws, all);
  const started = new Map<Check, Promise<Finding[]>>();
  for (const check of [...CHECKS].sort((a, b) => Number(b.first ?? 0) - Number(a.first ?? 0))) {
    const running = Promise.resolve()
      .then(() => check.run(g))
      .then((found) => (mark(`doctor: ${check.name} checked`), found));
    running.catch(() => undefined);
    started.set(check, running);
  }
  g.readsDone(Promise.all(CHECKS.filter((c) => c.reads).map((c) => started.get(c))));
  const found = await Promise.all(CHECKS.map((c) => started.get(c)!));
  mark("doctor: checks done");
  const said = await g.said();
  if (said.ignored && said.tracked === "") {
    g.verdicts.save();
    const ledger = await g.ledger();
    if ("save" in ledger) ledger.save();
  }
  return found;
}

export async function doctor(ws: Workspace, options: { all?: boolean; fix?: boolean } = {}): Promise<Finding[]> {
  const all = options.all === true;
  const found = await diagnose(ws, all);
  if (!options.fix) return found.flat();
  const fixed: Finding[] = [];
  for (const [i, check] of CHECKS.entries()) {
    const fixable = found[i]!.filter((f) => f.fixable);
    if (check.repair && fixable.length > 0) fixed.push(...(await check.repair(ws, fixable)));
  }
  return fixed.length === 0 ? found.flat() : [...fixed, ...(await diagnose(ws, all)).flat()];
}
