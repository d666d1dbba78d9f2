// Judging delivery from Copilot's events.jsonl (rows shaped as 1.0.102 writes them: a hook.start and
// a hook.end per hook run), the verdict an end records while that file is not written yet, and
// where the file is looked for.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BRIEFING_HEADING, copilotVerdict, deliveryAtEnd, settle } from "../../src/transcript/delivery.ts";
import { transcriptFile } from "../../src/hooks/delivery.ts";
import { adapted } from "../../src/providers/index.ts";
import { scratch } from "../support/repo.ts";

const start = (source = "new") =>
  JSON.stringify({ type: "hook.start", data: { hookType: "sessionStart", input: { source } } });
const end = (data: Record<string, unknown>) =>
  JSON.stringify({ type: "hook.end", data: { hookType: "sessionStart", ...data } });
const answered = (text: string) => end({ success: true, output: { additionalContext: text } });
const ours = `${BRIEFING_HEADING}\n\nEpisode s-1 (opened now).`;

const SHUTDOWN = JSON.stringify({ type: "session.shutdown", data: {} });

describe("delivery from Copilot's events", () => {
  test("our answer is inline; another hook's answer beside it is not ours; a failure is missing with its error", () => {
    expect(copilotVerdict([start(), answered("my own context"), start(), answered(ours)].join("\n"))).toEqual({
      state: "inline",
      cause: `the briefing reached the model whole (${ours.length} characters)`,
    });
    expect(copilotVerdict([start(), answered("my own context")].join("\n")).state).toBe("missing");
    const failed = copilotVerdict(
      [start(), end({ success: false, error: { message: "exit 1\nno binary" } })].join("\n"),
    );
    expect(failed).toEqual({ state: "missing", cause: "a start hook failed: no binary" });
  });

  test("the newest start decides: a resume whose start went unanswered is missing, though an older one was inline", () => {
    expect(copilotVerdict([start(), answered(ours), start("resume")].join("\n")).state).toBe("missing");
    // A torn line and rows of other hooks are no rows of the start.
    const other = JSON.stringify({ type: "hook.end", data: { hookType: "sessionEnd", success: true } });
    expect(
      copilotVerdict([start(), answered(ours), other, '{"type":"hook.end","data":{"hookTy'].join("\n")).state,
    ).toBe("inline");
  });

  test("at the end the file is not written yet: pending; read when asked once it is, not provable if it never is", () => {
    const home = scratch("majordomus-copilot-events-");
    const was = process.env.COPILOT_HOME;
    try {
      process.env.COPILOT_HOME = home;
      const dir = join(home, "session-state", "s-1");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "events.jsonl");
      expect(deliveryAtEnd("copilot", file, "").state).toBe("pending");
      expect(settle("copilot", file).state).toBe("not_provable");
      // Written, but not to its end (Copilot's last row, the shutdown, not there yet): still pending, never missing.
      writeFileSync(file, [start()].join("\n"));
      expect(settle("copilot", file).state).toBe("pending");
      writeFileSync(file, [start(), answered(ours), SHUTDOWN].join("\n"));
      expect(deliveryAtEnd("copilot", file, "").state).toBe("inline");
      expect(settle("copilot", file).state).toBe("inline");
      // Settling reads only a file of the name Copilot writes (the path comes back from the ledger).
      writeFileSync(join(dir, "other.txt"), [start(), answered(ours), SHUTDOWN].join("\n"));
      expect(settle("copilot", join(dir, "other.txt")).state).toBe("not_provable");
      // A client whose transcript exists at its end is never pending.
      expect(deliveryAtEnd("claude-code", join(dir, "none.jsonl"), "x").state).toBe("not_provable");
      expect(settle("claude-code", file).state).toBe("not_provable");
    } finally {
      if (was === undefined) delete process.env.COPILOT_HOME;
      else process.env.COPILOT_HOME = was;
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("the transcript is looked for under Copilot's folder, by a session id that can only name a folder in it", async () => {
    const { hooks } = await adapted("copilot");
    const home = process.env.HOME;
    const copilotHome = process.env.COPILOT_HOME;
    try {
      process.env.HOME = "/home/dev";
      delete process.env.COPILOT_HOME;
      expect(transcriptFile(hooks, "0f1e-2d")).toBe("/home/dev/.copilot/session-state/0f1e-2d/events.jsonl");
      process.env.COPILOT_HOME = "/srv/copilot";
      expect(transcriptFile(hooks, "0f1e-2d")).toBe("/srv/copilot/session-state/0f1e-2d/events.jsonl");
      for (const bad of ["../x", "a/b", ".", "..", "", "a\nb"]) expect(transcriptFile(hooks, bad), bad).toBeUndefined();
      expect(transcriptFile((await adapted("claude-code")).hooks, "0f1e-2d")).toBeUndefined();
    } finally {
      process.env.HOME = home;
      if (copilotHome === undefined) delete process.env.COPILOT_HOME;
      else process.env.COPILOT_HOME = copilotHome;
    }
  });
});
