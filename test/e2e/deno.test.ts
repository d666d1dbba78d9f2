// src/ runs unchanged under Deno (no Bun-only API outside lib/runtime.ts, which falls back).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PROJECT } from "../support/env.ts";
import { Repo, sh } from "../support/repo.ts";
import { DENO, denoInstalled } from "../support/deno.ts";

const MAIN = join(PROJECT, "src", "main.ts");

function deno(repo: Repo, args: string[]) {
  return sh(repo.dir, DENO, ["run", "-A", "--quiet", MAIN, ...args], undefined, {
    DENO_NO_UPDATE_CHECK: "1",
    DENO_DIR: join(process.env.HOME!, "deno"),
  });
}

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (name !== "ledger.jsonl")
        out[`${relative(dir, full)} ${(st.mode & 0o777).toString(8)}`] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe.skipIf(!denoInstalled() && !process.env.CI)(
  "deno run -A src/main.ts (needs Deno: `npm run setup:deno`; CI installs it and never skips this)",
  () => {
    test("init, history, policy and validation behave as in the binary", () => {
      using viaDeno = Repo.init();
      using viaBinary = Repo.init();
      expect(deno(viaDeno, ["init"]).status).toBe(0);
      expect(viaBinary.mj(["init"]).status).toBe(0);
      expect(tree(viaDeno.path(".ai"))).toEqual(tree(viaBinary.path(".ai")));

      const history = deno(viaDeno, ["history", "--json"]);
      expect(history.status).toBe(0);
      expect(JSON.parse(history.stdout).items).toMatchObject([{ event: "layer.initialized", mode: "init" }]);
      expect(deno(viaDeno, ["history", "--validate"]).status).toBe(0);
      expect(deno(viaDeno, ["policy"]).stdout).toBe(viaBinary.mj(["policy"]).stdout);

      writeFileSync(viaDeno.path(".ai/repo/policy.yaml"), "schema: policy/v1\nsession: [\n");
      const bad = deno(viaDeno, ["policy"]);
      expect(bad.status).toBe(10);
      expect(bad.stderr).toContain("not valid YAML");
      expect(deno(viaDeno, ["init"]).status).toBe(15);
    }, 300_000);
  },
);
