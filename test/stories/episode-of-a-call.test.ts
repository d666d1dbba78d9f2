// Which episode a hook call belongs to is decided once (session/attribution.ts): the one its payload's
// client session opened, or none. A prompt or an end that names no session, sent while the client's
// own variable (CLAUDE_CODE_SESSION_ID) names an open episode, is that episode's in nothing it writes:
// not the prompt's archive, not its ledger receipt, not a close.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { captured, fire, fixture } from "../support/capture.ts";
import { ledger } from "../support/layered.ts";

const receipts = (lines: Array<Record<string, unknown>>, event: string) =>
  lines.filter((l) => l.event === "provider.event.received" && l.provider_event === event);

describe("a hook call's episode, decided once", () => {
  test("a prompt and an end with no session id, inside a session's environment: the archive, the receipt and the close agree on none", () => {
    using repo = captured();
    const env = { CLAUDE_CODE_SESSION_ID: "cc-env" };
    fire(repo, "start", { ...fixture("SessionStart-startup.json"), session_id: "cc-env" }, env);
    const episode = ledger(repo).find((l) => l.event === "session.started")!.session_id as string;
    expect(episode).toMatch(/^s-/);

    // With its session id: the archive and the receipt both name the episode.
    const prompt = fixture("UserPromptSubmit-print.json");
    fire(repo, "prompt", { ...prompt, session_id: "cc-env", prompt_id: "p-named" }, env);
    // Without one: both say none.
    const { session_id: _, ...nameless } = prompt;
    fire(repo, "prompt", { ...nameless, prompt_id: "p-nameless" }, env);
    const archived = (id: string) =>
      JSON.parse(readFileSync(repo.path(`.ai/local/prompts/${id}.json`), "utf8")) as Record<string, unknown>;
    expect(
      readdirSync(repo.path(".ai/local/prompts"))
        .filter((f) => f.endsWith(".json"))
        .sort(),
    ).toEqual(["p-named.json", "p-nameless.json"]);
    expect(archived("p-named")).toMatchObject({ episode, episode_link: "open", provider_session: "cc-env" });
    expect(archived("p-nameless")).toMatchObject({ episode: null, episode_link: "orphan", provider_session: null });
    const [named, nameless_] = receipts(ledger(repo), "prompt");
    expect(named).toMatchObject({ session: episode, provider_session: "cc-env" });
    expect(nameless_).toMatchObject({ provider_session: "none" });
    expect(nameless_!.session ?? "none").toBe("none");

    // An end with no session id closes nothing, though the environment names the open episode.
    const { session_id: __, ...end } = fixture("SessionEnd-other.json");
    fire(repo, "end", end, env);
    const after = ledger(repo);
    expect(receipts(after, "end").at(-1)!.session ?? "none").toBe("none");
    expect(after.some((l) => l.event === "session.closed")).toBe(false);
    // Its own end closes it.
    fire(repo, "end", { ...fixture("SessionEnd-other.json"), session_id: "cc-env" }, env);
    expect(ledger(repo).find((l) => l.event === "session.closed")).toMatchObject({ session: episode });
  });
});
