import { Failure } from "../../lib/failure.ts";
import { workspace, type Workspace } from "../../workspace/workspace.ts";
import { recoverClaims, recoverStranded } from "../../lifecycle/recover.ts";
import { sweepTemps } from "../../lifecycle/sweep.ts";
import { expireDetached } from "../../lifecycle/connection.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { err, out, outJson } from "../print.ts";

export default command({
  meta: {
    name: "recover",
    description:
      "Finish closes whose taker died, and close stranded episodes (no event for " +
      "session.stranded_after) as interrupted",
  },
  examples: ["majordomus recover --check", "majordomus recover --older-than 24h"],
  args: {
    "older-than": { type: "string", description: "Override session.stranded_after (30m, 24h, 3d)" },
    check: { type: "boolean", description: "Only report them (exit 10 when any are stranded)" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    // First the closes an end event claimed and its taker never finished: they are not stranded, they are promised.
    const claims = await recoverClaims(ws, { check: args.check });
    const result = await recoverStranded(ws, {
      limit: Number.MAX_SAFE_INTEGER,
      olderThan: args["older-than"],
      check: args.check,
    });
    if (!result.threshold && claims.length === 0)
      throw new Failure(
        "missing",
        "the policy declares no session.stranded_after",
        "add it (e.g. `stranded_after: 24h`) or pass --older-than",
      );
    if (args.json) {
      outJson("recover", {
        check: args.check === true,
        threshold: result.threshold ?? null,
        closes: claims.map((c) => c.episodeId),
        stranded: result.closed.map((e) => e.session_id),
      });
    } else for (const line of recoveredLines(args.check === true, claims, result)) out(line);
    if (!args.check) await sweepAfter(ws);
    const pending = claims.length + result.closed.length;
    if (args.check && pending > 0)
      throw new Failure(
        "contract",
        `${claims.length} unfinished close(s) and ${result.closed.length} stranded episode(s)`,
        "`majordomus recover` finishes and closes them",
      );
  },
});

function recoveredLines(
  check: boolean,
  claims: ReadonlyArray<{ episodeId: string }>,
  result: {
    threshold?: string;
    closed: ReadonlyArray<{ session_id: string; opened_at: string; provider: string; provider_session: string }>;
  },
): string[] {
  const died = check ? " (claimed by an end event whose taker died)" : "";
  const lines = claims.map((c) => `${check ? "unfinished close" : "finished the close of"} ${c.episodeId}${died}`);
  if (result.closed.length === 0 && claims.length === 0)
    lines.push(
      `no unfinished close and no stranded episode${result.threshold ? ` (threshold ${result.threshold})` : ""}`,
    );
  for (const e of result.closed) {
    const client = e.provider !== "none" ? `, ${e.provider} session ${e.provider_session}` : "";
    lines.push(`${check ? "stranded" : "recovered"} ${e.session_id} (opened ${e.opened_at}${client})`);
  }
  return lines;
}

/**
 * Temp files killed writers left (never while their writer may still be alive), and connection episodes whose client
 * did not attach again within the grace.
 */
async function sweepAfter(ws: Workspace): Promise<void> {
  for (const rel of sweepTemps(ws)) err(`majordomus: removed ${rel}, a temp file a killed writer left`);
  const policy = await ws.policy();
  if (policy.policy.mcp?.reattach_grace_minutes === undefined) return;
  for (const id of await expireDetached(ws, policy))
    err(
      `majordomus: closed ${id} as interrupted: its client's connection dropped and it did not ` +
        `attach again within the grace`,
    );
}
