// The real GitHub Copilot CLI 1.0.102, installed from npm, run headless (`copilot -p`) offline
// against the Anthropic-API mock in a supervised repository: what its hooks make majordomus write,
// what reaches the model, and what the person's own hook files keep.
// Run with `npm run test:clients` (CI runs it too); `npm test` skips it.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { closedTexts, frontField, layered, ledger } from "../support/layered.ts";
import { statusRow } from "../support/capture.ts";
import { CopilotRig } from "./copilot-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;

describe.skipIf(!ENABLED)("GitHub Copilot CLI 1.0.102 against the mock API", () => {
  test(
    "install names the trust step; once trusted, a run is briefed (in the model's request), its prompt archived, its episode closed with a record, and status verifies the wiring and the delivery",
    async () => {
      using rig = new CopilotRig();
      expect(rig.installed).toContain("copilot will not run these hooks yet");
      expect(rig.installed).toContain("trustedFolders");
      expect(statusRow(rig.repo, "copilot", "session", rig.env()).state).toBe("wired");
      rig.trust();
      expect(statusRow(rig.repo, "copilot", "session", rig.env()).state).toBe("verified");
      expect(statusRow(rig.repo, "copilot", "prompt", rig.env()).state).toBe("verified");

      const run = await rig.run(["-p", "say ok"]);
      expect(run).toMatchObject({ status: 0, timedOut: false });
      // The briefing is in the first user message the model was sent.
      const first = rig.mock.messages()[0]!;
      const user = JSON.stringify((first.body?.messages as unknown[])[0]);
      expect(user).toContain("## majordomus — what this repository already knows");
      const prompts = readdirSync(rig.repo.path(".ai/local/prompts")).filter((f) => f.endsWith(".json"));
      expect(prompts.length).toBe(1);
      expect(JSON.parse(readFileSync(rig.repo.path(".ai/local/prompts", prompts[0]!), "utf8"))).toMatchObject({
        text: "say ok",
        provider: "copilot",
      });
      const records = closedTexts(rig.repo);
      expect(records.length).toBe(1);
      expect(frontField(records[0]!, "provider")).toBe("copilot");
      expect(frontField(records[0]!, "outcome")).toBe("closed");
      // Copilot writes its transcript as it exits, after the end hook: the verdict is read when asked.
      // Waited for, not timed: until Copilot has finished writing it (pending till then).
      let status = { delivery: [{ state: "pending" }] } as { delivery: Array<{ state: string; cause: string }> };
      for (let n = 0; n < 120 && status.delivery[0]?.state === "pending"; n++) {
        if (n > 0) await Bun.sleep(500);
        status = JSON.parse(rig.repo.mj(["capture", "status", "--json"], { env: rig.env() }).stdout);
      }
      expect(status.delivery).toEqual([expect.objectContaining({ provider: "copilot", state: "inline" })]);
      expect(status.delivery[0].cause).toContain("the briefing reached the model whole");
    },
    TIMEOUT,
  );

  test(
    "an auto compaction (preCompact) gives a derived checkpoint in the episode, before its close; a resume is the same client session",
    async () => {
      using rig = new CopilotRig({
        mock: {
          // The first answer reports a nearly full window and calls the shell: Copilot compacts before its next call.
          inputTokens: (_r, i) => (i === 0 ? 195_000 : 1_000),
          tool: (_r, i) =>
            i === 0 ? { name: "bash", input: { command: "echo hi", description: "say hi" } } : undefined,
        },
      });
      rig.trust();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const lines = ledger(rig.repo);
      const compaction = lines.filter((e) => e.event === "task.checkpoint" && e.closing !== true);
      expect(compaction.length).toBe(1);
      const closed = lines.findIndex((e) => e.event === "session.closed" && e.session_id === compaction[0]!.session);
      expect(lines.indexOf(compaction[0]!)).toBeLessThan(closed);

      const started = lines.find((e) => e.event === "provider.event.received" && e.provider_event === "start")!;
      expect((await rig.run([`--resume=${started.provider_session}`, "-p", "again"])).status).toBe(0);
      const starts = ledger(rig.repo).filter(
        (e) => e.event === "provider.event.received" && e.provider_event === "start",
      );
      expect(starts.map((e) => e.source)).toEqual(["new", "resume"]);
      expect(new Set(starts.map((e) => e.provider_session)).size).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "uninstall takes only ours out: the person's own hook file stays byte-identical and still runs",
    async () => {
      const repo = layered();
      mkdirSync(repo.path(".github/hooks"), { recursive: true });
      const mine = `${JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: "command", bash: "echo mine >> .mine.log" }] } }, null, 2)}\n`;
      writeFileSync(repo.path(".github/hooks/mine.json"), mine);
      using rig = new CopilotRig({ repo });
      rig.trust();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(readFileSync(repo.path(".mine.log"), "utf8")).toBe("mine\n");
      expect(closedTexts(rig.repo).length).toBe(1);

      const un = repo.mj(["capture", "uninstall", "--provider", "copilot"], { env: rig.env() });
      expect(un.status).toBe(0);
      expect(existsSync(repo.path(".github/hooks/majordomus.json"))).toBe(false);
      expect(readdirSync(repo.path(".github/hooks")).filter((f) => f.startsWith("majordomus"))).toEqual([]);
      expect(readFileSync(repo.path(".github/hooks/mine.json"), "utf8")).toBe(mine);
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(readFileSync(repo.path(".mine.log"), "utf8")).toBe("mine\nmine\n");
      // Nothing of ours ran the second time.
      expect(closedTexts(rig.repo).length).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "an untrusted folder: capture status and doctor say Copilot will not run the hooks, and a run writes nothing",
    async () => {
      using rig = new CopilotRig();
      const row = statusRow(rig.repo, "copilot", "session", rig.env());
      expect(row.state).toBe("wired");
      expect(row.reason).toContain("Copilot does not trust");
      const doctor = rig.repo.mj(["doctor"], { env: rig.env() });
      expect(doctor.stdout).toContain("GitHub Copilot CLI will not run it");
      const run = await rig.run(["-p", "say ok"]);
      expect(run.status).toBe(0);
      expect(ledger(rig.repo).some((e) => e.event === "provider.event.received")).toBe(false);
      // A folder above the checkout counts as trusting it.
      rig.trust([rig.project.split("/").slice(0, -1).join("/")]);
      expect(statusRow(rig.repo, "copilot", "session", rig.env()).state).toBe("verified");
    },
    TIMEOUT,
  );
});
