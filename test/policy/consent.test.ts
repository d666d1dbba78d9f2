// A switch that lets majordomus write into the user's own tree is on only when it says exactly true.
import { describe, expect, test } from "bun:test";
import { CONSENT_KEYS, consents, isConsentKey, parsePolicy, type Policy } from "../../src/policy/index.ts";
import { providers } from "../../src/providers/index.ts";
import { readData } from "../../src/assets/index.ts";
import { Failure } from "../../src/lib/failure.ts";

describe("consent switches", () => {
  for (const key of CONSENT_KEYS) {
    test(`${key}: only true is consent`, () => {
      const leaf = key.replace(/^session\./, "");
      expect(consents({ schema: "policy/v1", session: { [leaf]: true } } as Policy, key)).toBe(true);
      expect(consents({ schema: "policy/v1", session: { [leaf]: false } } as Policy, key)).toBe(false);
      expect(consents({ schema: "policy/v1", session: { [leaf]: "true" } } as unknown as Policy, key)).toBe(false);
      expect(consents({ schema: "policy/v1", session: {} } as Policy, key)).toBe(false);
      expect(consents({ schema: "policy/v1" } as Policy, key)).toBe(false);
      expect(consents(undefined, key)).toBe(false);
    });
  }

  test("every mod switch in providers.yaml is a consent key the policy schema declares as a boolean", async () => {
    const schema = (await readData("share/schemas/policy.schema.json")) as {
      properties: Record<string, { properties?: Record<string, { type?: string }> }>;
    };
    const switches = [...(await providers()).values()].flatMap((p) =>
      Object.values(p.hooks?.mods ?? {}).map((m) => m.switch as string),
    );
    expect(switches.length).toBeGreaterThan(0);
    for (const key of [...switches, ...CONSENT_KEYS]) {
      expect(isConsentKey(key)).toBe(true);
      const [section, leaf] = key.split(".");
      expect(schema.properties[section!]?.properties?.[leaf!]?.type).toBe("boolean");
    }
  });

  test.each(['"true"', "yes", "1", "on"])("the schema refuses %p where a boolean belongs", async (value) => {
    const err = await parsePolicy(`schema: policy/v1\nsession:\n  handover_on_fill: ${value}\n`, "policy.yaml").catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(Failure);
    expect(err.details.join("\n")).toContain("session.handover_on_fill: must be boolean");
  });

  test("pushing without committing is refused", async () => {
    const err = await parsePolicy("schema: policy/v1\nsession:\n  push_record_on_end: true\n", "policy.yaml").catch(
      (e) => e,
    );
    expect(err.details.join("\n")).toContain("push_record_on_end: is true but commit_record_on_end is not");
  });
});
