// Delivery proven from the client's own transcript: the real Claude Code 2.1.332 against the mock.
// After a session, majordomus records whether its briefing reached the model inline, collapsed into
// a preview (made here by a start shim that answers past the client's limit), or not at all (a start
// hook that fails); session show, doctor and capture status say so. A client whose transcript is not
// read is "not provable", never "delivered". Run with `npm run test:clients`.
import { describe, expect, test } from "bun:test";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { ledger } from "../support/layered.ts";
import { ClaudeRig } from "./rig.ts";
import { CodexRig } from "./codex-rig.ts";

const ENABLED = process.env.MAJORDOMUS_CLIENT_TESTS === "1";
const TIMEOUT = 600_000;
const SHIM = ".claude/hooks/majordomus-session-start";

const verdicts = (rig: { repo: ClaudeRig["repo"] }) => ledger(rig.repo).filter((e) => e.event === "session.delivery");

/** Put a wrapper in front of the installed start shim (the real one kept beside it). */
function wrapStart(rig: ClaudeRig, body: (real: string) => string): void {
  const real = rig.repo.path(`${SHIM}.real`);
  renameSync(rig.repo.path(SHIM), real);
  writeFileSync(rig.repo.path(SHIM), `#!/bin/sh\n${body(real)}\n`, { mode: 0o755 });
}

describe.skipIf(!ENABLED)("what reached the model, from the client's transcript", () => {
  test(
    "inline: the end records it, session show says it, doctor and capture status pass on it",
    async () => {
      using rig = new ClaudeRig();
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      const v = verdicts(rig);
      expect(v.length).toBe(1);
      expect(v[0]).toMatchObject({ provider: "claude-code", delivery: "inline" });
      const id = String(v[0]!.session);
      expect(rig.repo.mj(["session", "show", id]).stdout).toMatch(
        /Briefing: inline — the briefing reached the model whole \([\d,]+ characters\)/,
      );
      expect(rig.repo.mj(["doctor"]).stdout).not.toContain("briefing of episode");
      const status = rig.repo.mj(["capture", "status", "--no-verify"]);
      expect(status.stdout).toMatch(/claude-code:briefing\s+inline/);
    },
    TIMEOUT,
  );

  test(
    "collapsed: an answer past the client's limit is recorded as collapsed, and doctor and capture status fail naming the cause",
    async () => {
      using rig = new ClaudeRig();
      // A budget forced too high: the real briefing, then 12,000 characters more.
      wrapStart(rig, (real) => `"${real}"\nhead -c 12000 /dev/zero | tr '\\\\0' x\necho`);
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(rig.mock.messages()[0]!.text).toContain("persisted-output");
      expect(verdicts(rig).at(-1)).toMatchObject({ delivery: "collapsed" });
      expect(String(verdicts(rig).at(-1)!.cause)).toContain("2 KB preview");
      const doctor = rig.repo.mj(["doctor"]);
      expect(doctor.status).toBe(10);
      expect(doctor.stdout).toMatch(
        /FAIL lifecycle claude-code session \S+ — the briefing of episode s-\S+ was collapsed/,
      );
      const status = rig.repo.mj(["capture", "status", "--no-verify"]);
      expect(status.status).toBe(10);
      expect(status.stdout).toMatch(/claude-code:briefing\s+collapsed\s+Claude Code stood a 2 KB preview/);
      // A later session delivered inline clears it: only the newest delivery counts.
      writeFileSync(rig.repo.path(SHIM), readFileSync(rig.repo.path(`${SHIM}.real`)), { mode: 0o755 });
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(verdicts(rig).at(-1)).toMatchObject({ delivery: "inline" });
      expect(rig.repo.mj(["capture", "status", "--no-verify"]).stdout).toMatch(/claude-code:briefing\s+inline/);
    },
    TIMEOUT,
  );

  test(
    "missing: a start hook that fails (here after majordomus opened the episode) is recorded as missing, with its exit and its message",
    async () => {
      using rig = new ClaudeRig();
      wrapStart(rig, (real) => `"${real}"\necho 'the wrapper failed' >&2\nexit 1`);
      expect((await rig.run(["-p", "say ok"])).status).toBe(0);
      expect(rig.mock.messages()[0]!.text).not.toContain("majordomus — what this repository already knows");
      const v = verdicts(rig).at(-1)!;
      expect(v).toMatchObject({ delivery: "missing" });
      expect(String(v.cause)).toContain("exit 1");
      expect(String(v.cause)).toContain("the wrapper failed");
      expect(rig.repo.mj(["doctor"]).stdout).toContain("was missing");
    },
    TIMEOUT,
  );

  test(
    "Codex: the end records not provable, never delivered",
    async () => {
      using rig = new CodexRig();
      rig.trust();
      expect((await rig.run(["say ok"])).status).toBe(0);
      expect(verdicts(rig).at(-1)).toMatchObject({ provider: "codex", delivery: "not_provable" });
    },
    TIMEOUT,
  );
});
