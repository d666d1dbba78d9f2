/** The hooks table is the one place each hook event is described: the shims, commands and checks follow it. */
import { describe, expect, test } from "bun:test";
import { HOOK_COMMANDS } from "../../src/cli/hooks.ts";
import { shimText } from "../../src/wiring/shims.ts";
import {
  HOOKS,
  HOOK_EVENTS,
  answered,
  clientRow,
  eventsAnsweredBy,
  eventsOf,
  hookArgs,
} from "../../src/providers/hooks.ts";
import { CLIENT_IDS, providers, type Hooks, type Provider } from "../../src/providers/index.ts";

const adapted = async () =>
  [...(await providers()).values()].filter((p): p is Provider & { hooks: Hooks } => p.hooks !== undefined);

describe("the hooks table", () => {
  test("every row is answered by a hook command the CLI loads on its own, and every event is in one aspect", () => {
    for (const event of HOOK_EVENTS) expect(Object.keys(HOOK_COMMANDS)).toContain(HOOKS[event].command);
    expect([...eventsOf("prompt"), ...eventsOf("session")].sort()).toEqual([...HOOK_EVENTS].sort());
    expect(eventsAnsweredBy("session")).toEqual(["start", "compact", "end", "limit"]);
  });

  test("every adapted client has the client's side of every row, and a budget for every channel a row names", async () => {
    const clients = await adapted();
    // The closed client id type names exactly the table's adapted rows.
    expect(clients.map((p) => p.id).sort()).toEqual([...CLIENT_IDS].sort());
    for (const p of clients) {
      // Every client answers the four; `limit` only one that says an API error ended a turn.
      expect(answered(p.hooks).filter((e) => e !== "limit")).toEqual(["prompt", "start", "compact", "end"]);
      for (const event of answered(p.hooks)) {
        const row = clientRow(p.hooks, event);
        expect(row.event).toBeString();
        expect(row.shim).toStartWith(".");
        expect(row.timeout).toBeGreaterThan(0);
        if (row.channel) expect(p.hooks.budgets[row.channel]?.chars).toBeGreaterThan(0);
      }
    }
  });

  test("each shim runs its row: the command, the engine options, and git status only where the row starts it", async () => {
    for (const p of await adapted())
      for (const event of answered(p.hooks)) {
        const text = shimText(p, event);
        const row = HOOKS[event];
        expect(text).toContain(`${row.engine} exec "$mj" ${hookArgs(p, event).join(" ")} --repo "$root" "$@"`);
        expect(text.includes(" status --porcelain")).toBe(row.startsStatus);
      }
  });
});
