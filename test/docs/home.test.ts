// The project's home is set in one place (package.json's `home`), and nothing a person reads or runs names another:
// no URL on a host or under an owner the home is not, no npm package or scope the project does not own. A name a
// stranger can register, piped into a shell, is the worst first line a README can have.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT } from "../support/env.ts";

const HOME = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).home as {
  github: string | null;
  npm_scope: string | null;
};

/** What a person reads, runs or installs from: the README, the docs, install.sh, the manifests and workflows. */
const FILES = [
  "README.md",
  "install.sh",
  "package.json",
  "build.ts",
  ...readdirSync(join(PROJECT, "docs")).map((f) => `docs/${f}`),
  ...readdirSync(join(PROJECT, ".github", "workflows")).map((f) => `.github/workflows/${f}`),
];

/**
 * Hosts that are not a project's home but the machinery every reader already uses: the loopback the server binds, the
 * npm registry the release publishes to.
 */
const MACHINERY = new Set(["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "registry.npmjs.org"]);

/** Every address in a text that names a place the project would have to own. */
export function foreignNames(text: string, home: typeof HOME): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bhttps?:\/\/([^/\s)"'`<>]+)(\/[^\s)"'`<>]*)?/g)) {
    const host = m[1]!.replace(/:(\d+|PORT)$/, "");
    const path = m[2] ?? "";
    if (MACHINERY.has(host.replace(/:PORT$/, "")) || host.includes("$") || host === "PORT") continue;
    const owner = /^\/([^/]+\/[^/#?]+)/.exec(path)?.[1]?.replace(/\.git$/, "");
    // An address built from the home (`$repo`, `${HOME.github}`) derives from it.
    if (host === "github.com" && ((home.github !== null && owner === home.github) || path.includes("$"))) continue;
    found.push(m[0]);
  }
  // npm names a person would install or run: a scope, or a package fetched by npx / npm i -g.
  for (const m of text.matchAll(/(?<![\w.-])@([a-z0-9][\w.-]*)\/[a-z0-9][\w.-]*/g))
    if (
      `@${m[1]}` !== home.npm_scope &&
      !/^(types|modelcontextprotocol|secretlint|anthropic-ai|openai|google|github|opencode-ai)$/.test(m[1]!)
    )
      found.push(m[0]);
  for (const m of text.matchAll(
    /\b(?:npx|npm i(?:nstall)? -g|npm install --global)\s+(?:--?[\w-]+(?:=\S+)?\s+)*([@\w./-]+)/g,
  ))
    if (home.npm_scope === null || !m[1]!.startsWith(`${home.npm_scope}/`)) found.push(m[0]);
  // owner/name after --repo or in MAJORDOMUS_REPO: a GitHub repository named outright.
  for (const m of text.matchAll(/(?:--repo\s+|MAJORDOMUS_REPO[:=-]+)([\w.-]+\/[\w.-]+)/g))
    if (m[1] !== home.github && m[1] !== "owner/name") found.push(m[0]);
  return found;
}

describe("the project's home", () => {
  test("is set in package.json alone, and install.sh carries no other (its release copy is stamped from it)", () => {
    expect(Object.keys(HOME).sort()).toEqual(["github", "npm_scope"]);
    const pkg = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8"));
    expect(pkg.repository).toBeUndefined();
    expect(pkg.homepage).toBeUndefined();
    expect(readFileSync(join(PROJECT, "install.sh"), "utf8")).toMatch(/^home=$/m);
  });

  test("no page, script or manifest names a host, owner or package outside it", () => {
    const found = FILES.flatMap((f) =>
      foreignNames(readFileSync(join(PROJECT, f), "utf8"), HOME).map((n) => `${f}: ${n}`),
    );
    expect(found).toEqual([]);
  });

  test("the check finds what it must: another owner's release, a badge, an unregistered scope, npx of a stranger's name", () => {
    const none = { github: null, npm_scope: null };
    const text = [
      "curl -fsSL https://github.com/majordomus/majordomus/releases/latest/download/install.sh | sh",
      "[![ci](https://github.com/someone/else/actions/workflows/ci.yml/badge.svg)](https://example.com)",
      "`@majordomus/cli-linux-x64`, `npx majordomus --version`, `npm i -g majordomus`",
      "gh attestation verify f --repo majordomus/majordomus",
    ].join("\n");
    expect(foreignNames(text, none)).toEqual([
      "https://github.com/majordomus/majordomus/releases/latest/download/install.sh",
      "https://github.com/someone/else/actions/workflows/ci.yml/badge.svg",
      "https://example.com",
      "@majordomus/cli-linux-x64",
      "npx majordomus",
      "npm i -g majordomus",
      "--repo majordomus/majordomus",
    ]);
    const owned = { github: "acme/majordomus", npm_scope: "@acme" };
    expect(
      foreignNames(
        "https://github.com/acme/majordomus/releases `npx @acme/majordomus` http://127.0.0.1:7411/ --repo acme/majordomus",
        owned,
      ),
    ).toEqual([]);
  });
});
