// Whether Copilot will run the repository's hooks, read from its config as the client writes it (a
// header of `//` comment lines, `trustedFolders`), through the compiled binary: install says the
// trust step until the folder, or one above it, is listed.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { layered, ok } from "../support/layered.ts";
import { scratch } from "../support/repo.ts";

describe("Copilot's folder trust", () => {
  test("untrusted: install names the step; the folder, a folder above it, or COPILOT_HOME's config trusts it; a sibling does not", () => {
    using repo = layered();
    const home = scratch("majordomus-copilot-home-");
    try {
      const folder = realpathSync(repo.dir);
      const config = (dir: string, key: string, folders: string[]) => {
        mkdirSync(dir, { recursive: true });
        const body = JSON.stringify({ [key]: folders }, null, 2);
        writeFileSync(
          join(dir, "config.json"),
          `// User settings belong in settings.json.\n// This file is managed automatically.\n${body}\n`,
        );
      };
      const install = (env: Record<string, string | undefined>) =>
        ok(
          repo.mj(["capture", "install", "--provider", "copilot"], {
            env: { HOME: home, COPILOT_HOME: undefined, ...env },
          }),
        ).stderr;

      const untrusted = install({});
      expect(untrusted).toContain("copilot will not run these hooks yet");
      expect(untrusted).toContain(`"${folder}" to "trusted_folders" in ${join(home, ".copilot", "config.json")}`);
      config(join(home, ".copilot"), "trustedFolders", [`${folder}-sibling`]);
      expect(install({})).toContain("will not run these hooks yet");
      config(join(home, ".copilot"), "trustedFolders", [folder]);
      expect(install({})).not.toContain("will not run");
      config(join(home, ".copilot"), "trusted_folders", [dirname(folder)]);
      expect(install({})).not.toContain("will not run");
      // COPILOT_HOME moves the config: the one under HOME no longer counts.
      const moved = join(home, "elsewhere");
      expect(install({ COPILOT_HOME: moved })).toContain("will not run these hooks yet");
      config(moved, "trustedFolders", [folder]);
      expect(install({ COPILOT_HOME: moved })).not.toContain("will not run");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
