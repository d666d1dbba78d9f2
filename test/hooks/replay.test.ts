// Every payload the real clients were seen to send (test/fixtures: Claude Code 2.1.332, Codex
// 0.171.0, Gemini 0.61.0), replayed in process through the same functions the hook commands call,
// with the hook's mode as an argument (its work done in the hook itself): each event we answer is
// received, attributed to its client session, and does what its row says; the others are events we
// do not hook. A real git repository and a real layer; nothing of ours is mocked.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { adapted, answered, CLIENT_IDS, type ClientId, type HookEvent } from "../../src/providers/index.ts";
import { parsePayload } from "../../src/hooks/payload.ts";
import { describeHookCall, payloadSession, type SessionEvent } from "../../src/hooks/delivery.ts";
import { handleSessionEvent } from "../../src/hooks/session.ts";
import { capturePrompt } from "../../src/hooks/prompt.ts";
import { workspace } from "../../src/workspace/workspace.ts";
import { PROJECT } from "../support/env.ts";
import { Repo } from "../support/repo.ts";
import { ledger, closedRecords } from "../support/layered.ts";

const FIXTURES = join(PROJECT, "test", "fixtures");
type Capture = { payload: Record<string, unknown>; wrapper: Record<string, unknown> };
const named = ({ payload }: Capture) => payload.hook_event_name ?? payload.type;
/** Each client's captures: the event a payload answers (Copilot's payloads do not name it; the capture does). */
const CAPTURES: Record<ClientId, { event: (capture: Capture) => unknown }> = {
  "claude-code": { event: named },
  codex: { event: named },
  gemini: { event: named },
  copilot: { event: ({ wrapper }) => wrapper._event },
  // The plugin's payloads do not name their event; the capture does.
  opencode: { event: ({ wrapper }) => wrapper._event },
};
const CLIENTS = CLIENT_IDS;

/** A captured payload's text: Codex's, Gemini's and Copilot's captures wrap it with where it came from. */
function payloadText(file: string): string {
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  return JSON.stringify("_source" in raw ? raw.payload : raw);
}

function supervised(): Repo {
  const repo = Repo.init();
  repo.commit("the project", "src/index.ts", "export const hello = 1;\n");
  expect(repo.mj(["init"]).status).toBe(0);
  return repo;
}

let replayed = 0;
let notOurs = 0;
const covered = new Map<string, Set<string>>(CLIENTS.map((c) => [c, new Set<string>()]));
const answering = new Map(await Promise.all(CLIENTS.map(async (c) => [c, await adapted(c)] as const)));

for (const client of CLIENTS) {
  describe(`${client}'s captured payloads, replayed in process`, async () => {
    const provider = await adapted(client);
    const files = readdirSync(join(FIXTURES, client)).filter((f) => f.endsWith(".json"));
    for (const name of files) {
      const text = payloadText(join(FIXTURES, client, name));
      const wrapper = JSON.parse(readFileSync(join(FIXTURES, client, name), "utf8")) as Record<string, unknown>;
      const payload_ = JSON.parse(text) as Record<string, unknown>;
      const clientEvent = String(CAPTURES[client].event({ payload: payload_, wrapper }) ?? "no event name");
      const ours = (Object.entries(provider.hooks.events) as Array<[HookEvent, { event: string }]>).find(
        ([, row]) => row.event === clientEvent,
      )?.[0];
      test(`${name} (${clientEvent}${ours ? ` → ${ours}` : ": not an event majordomus hooks"})`, async () => {
        if (!ours) {
          notOurs++;
          // Nothing installs a hook for it: the settings entries come from the same table.
          expect(Object.values(provider.hooks.events).map((r) => r.event)).not.toContain(clientEvent);
          return;
        }
        using repo = supervised();
        const payload = parsePayload(text);
        expect(payload.problem).toBeUndefined();
        const session = payloadSession(provider, payload);
        expect(session).toBeDefined();
        if (ours === "prompt") {
          const outcome = await capturePrompt(await workspace(repo.dir, session), provider, payload);
          expect(["archived", "skipped"]).toContain(outcome.status);
        } else {
          // The session's own start first, as the client sends it, so a compaction or an end finds its episode.
          if (ours !== "start") {
            const opened = describeHookCall(
              provider,
              "start",
              parsePayload(JSON.stringify({ ...payload.data, source: "startup" })),
            );
            await handleSessionEvent(await workspace(repo.dir, session), opened, "foreground");
          }
          const call = describeHookCall(provider, ours as SessionEvent, payload);
          const answer = await handleSessionEvent(await workspace(repo.dir, session), call, "foreground");
          if (ours === "start") expect(answer).toContain("## majordomus");
          else expect(answer).toBeUndefined();
          if (ours === "end") expect(closedRecords(repo).length).toBe(1);
        }
        const lines = ledger(repo);
        expect(lines.filter((l) => l.event === "provider.event.failed")).toEqual([]);
        const receipt = lines.filter((l) => l.event === "provider.event.received").at(-1)!;
        expect(receipt).toMatchObject({ provider: client, provider_event: ours, provider_session: session });
        replayed++;
        covered.get(client)!.add(ours);
      });
    }
  });
}

test("every client's payloads were replayed, and each client sent one of every event majordomus hooks", () => {
  console.log(`replayed ${replayed} captured payloads in process; ${notOurs} are events majordomus does not hook`);
  expect(replayed).toBeGreaterThanOrEqual(30);
  for (const client of CLIENTS)
    expect([...covered.get(client)!].sort(), client).toEqual(answered(answering.get(client)!.hooks).sort());
});
