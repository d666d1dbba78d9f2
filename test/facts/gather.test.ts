// What a command gathers, in process on a real git repository and a real layer: a record's citations
// are checked against the tree only for a view that shows them.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { isNews } from "../../src/records/claims.ts";
import { gatherFacts, gatherForRecords } from "../../src/facts/gather.ts";
import { workspace } from "../../src/workspace/workspace.ts";
import { HANDOVER_NEEDS } from "../../src/views/derived.ts";
import { BRIEFING_NEEDS } from "../../src/views/briefing.ts";
import { CONTEXT_NEEDS } from "../../src/views/context.ts";
import { layered, ok } from "../support/layered.ts";

const CITING =
  "# Objective\nShip the parser.\n\n# Current State\nHalf done in `src/parser.ts`.\n\n# Next Action\nFinish `src/parser.ts`, then run `npm test`.\n";

describe("a record's citations, checked only where they are shown", () => {
  test("the briefing and the context view have them labelled; a derived record's facts do not check them", async () => {
    using repo = layered();
    repo.commit("the parser", "src/parser.ts", "export const parse = 1;\n");
    ok(repo.mj(["handover"], { input: CITING }));
    // The cited file changes after the handover was written.
    writeFileSync(repo.path("src/parser.ts"), "export const parse = 2;\n");

    const ws = await workspace(repo.dir);
    for (const needs of [BRIEFING_NEEDS, CONTEXT_NEEDS]) {
      const claims = (await gatherFacts(ws, needs)).handover.view?.claims;
      const parser = claims?.labels.find((l) => l.cited.includes("src/parser.ts"));
      expect(parser && isNews(parser.state)).toBe(true);
    }
    const derived = await gatherForRecords(ws, HANDOVER_NEEDS);
    // The same record, resolved and labelled alike, without the check.
    const briefed = (await gatherFacts(ws, BRIEFING_NEEDS)).handover.view;
    expect(derived.handover.view?.path).toBe(briefed!.path);
    expect(derived.handover.view?.divergence).toBe(briefed!.divergence);
    expect(derived.handover.view?.claims).toBeUndefined();
  });
});
