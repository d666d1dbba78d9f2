// A switch that lets majordomus write into the user's own tree is on only when it says exactly true.
import { describe, expect, test } from "bun:test";
import { CONSENT_KEYS, consents, parsePolicy, type Policy } from "../../src/policy/index.ts";
import { Failure } from "../../src/lib/failure.ts";

describe("consent switches", () => {
  for (const key of CONSENT_KEYS) {
    test(`${key}: only true is consent`, () => {
      expect(consents({ schema: "policy/v1", session: { [key]: true } } as Policy, key)).toBe(true);
      expect(consents({ schema: "policy/v1", session: { [key]: false } } as Policy, key)).toBe(false);
      expect(consents({ schema: "policy/v1", session: {} } as Policy, key)).toBe(false);
      expect(consents({ schema: "policy/v1" } as Policy, key)).toBe(false);
      expect(consents(undefined, key)).toBe(false);
    });
  }

  test.each(['"true"', "yes", "1", "on"])("the schema refuses %p where a boolean belongs", async (value) => {
    const err = await parsePolicy(`schema: policy/v1\nsession:\n  handover_on_fill: ${value}\n`, "policy.yaml").catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.details.join("\n")).toContain("session.handover_on_fill: must be boolean");
  });

  test("pushing without committing is refused", async () => {
    const err = await parsePolicy("schema: policy/v1\nsession:\n  push_record_on_end: true\n", "policy.yaml").catch((e) => e);
    expect(err.details.join("\n")).toContain("push_record_on_end: is true but commit_record_on_end is not");
  });
});
