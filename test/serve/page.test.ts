// The continuity page in a real headless Chromium (Debian's package, driven by puppeteer-core; no
// browser is downloaded): every card, for a fresh handover and for the same one gone stale, with
// JavaScript on and off. A screenshot of each is kept in test/artifacts/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { PROJECT } from "../support/env.ts";
import { startServe } from "../support/serve.ts";
import { captured, fire } from "../support/capture.ts";
import { ok } from "../support/layered.ts";
import type { Repo } from "../support/repo.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const ARTIFACTS = join(PROJECT, "test", "artifacts");
const NEXT = "Wire the config loader into src/main.ts and run the tests.";
const CARDS = [
  "checkout",
  "episodes",
  "task",
  "resume",
  "checkpoint",
  "blockers",
  "closed",
  "recovery",
  "providers",
  "trust",
];

const serve = (repo: Repo, env: Record<string, string> = {}) => startServe(repo.dir, env);

/** The text of each card, by its id. */
async function cards(page: Page): Promise<Record<string, string>> {
  return page.$$eval("section", (sections) =>
    Object.fromEntries(sections.map((s) => [s.id, (s as unknown as { innerText: string }).innerText])),
  );
}

describe.if(CHROMIUM !== undefined)(
  "the continuity page in Chromium (needs chromium: Debian's package; CI installs it)",
  () => {
    let repo: Repo;
    let browser: Browser;
    const servers: ChildProcess[] = [];

    beforeAll(async () => {
      repo = captured();
      fire(repo, "start", { session_id: "cc-old", source: "startup" });
      fire(repo, "end", { session_id: "cc-old", reason: "prompt_input_exit" });
      fire(repo, "start", { session_id: "cc-now", source: "startup" });
      ok(repo.mj(["start", "make the greeting configurable", "--scope", "src"]));
      ok(
        repo.mj(["handover", "--no-task"], {
          input: `# Objective\nA.\n\n# Current State\nB.\n\n# Next Action\n${NEXT}\n`,
          env: { CLAUDE_CODE_SESSION_ID: "cc-now" },
        }),
      );
      ok(repo.mj(["question", "add", "which file format?"]));
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        userDataDir: join(repo.dir, "..", `chromium-profile-${process.pid}`),
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      for (const s of servers) s.kill("SIGTERM");
      repo?.[Symbol.dispose]();
    });

    for (const javascript of [true, false]) {
      test(`a fresh handover, JavaScript ${javascript ? "on" : "off"}: every card, the Next Action quoted with its badges`, async () => {
        const { child, url, open } = await serve(repo);
        servers.push(child);
        const page = await browser.newPage();
        await page.setJavaScriptEnabled(javascript);
        // The URL serve printed, opened as the person opens it: one click, the page, the token gone from the address bar.
        const res = await page.goto(open, { waitUntil: "load" });
        expect(res?.status()).toBe(200);
        expect(page.url()).toBe(`${url}/`);
        const text = await cards(page);
        expect(Object.keys(text)).toEqual(CARDS);
        expect(text.resume).toContain("exact · fresh");
        expect(text.resume).toContain(NEXT);
        expect(
          await page.$eval("#resume blockquote.next-action", (e) => (e as unknown as { innerText: string }).innerText),
        ).toBe(NEXT);
        expect(text.episodes).toContain("cc-now");
        expect(text.closed).toContain("closed at");
        expect(text.task).toContain("make the greeting configurable");
        expect(text.blockers).toContain("which file format?");
        expect(text.checkpoint).toMatch(/exact · fresh|no checkpoint/);
        expect(text.recovery).toContain("nothing to recover");
        expect(text.providers).toContain("claude-code");
        expect(text.trust).toContain("git wins");
        expect(await page.$$eval("script", (s) => s.length)).toBe(0);
        await page.screenshot({
          path: join(ARTIFACTS, `continuity-fresh-js-${javascript ? "on" : "off"}.png`),
          fullPage: true,
        });
        await page.close();
      }, 60_000);
    }

    test("the same handover five days later: stale, its Next Action withheld, absence stated where there is nothing", async () => {
      const { child, open } = await serve(repo, {
        MAJORDOMUS_NOW: new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString(),
      });
      servers.push(child);
      const page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      await page.goto(open, { waitUntil: "load" });
      const text = await cards(page);
      expect(text.resume).toContain("exact · stale");
      expect(text.resume).not.toContain(NEXT);
      expect(await page.$("#resume blockquote.next-action")).toBeNull();
      expect(await page.$eval("#resume .withheld", (e) => (e as unknown as { innerText: string }).innerText)).toContain(
        "withheld",
      );
      expect(await page.$eval("#resume .badge", (e) => e.className)).toContain("stale");
      await page.screenshot({ path: join(ARTIFACTS, "continuity-stale.png"), fullPage: true });
      await page.close();
    }, 60_000);

    test("a browser without the token (a fresh profile, or a wrong one in the URL) is shown how to get in, and nothing of the account", async () => {
      const { child, url, token } = await serve(repo);
      servers.push(child);
      const stranger = await browser.createBrowserContext();
      try {
        const page = await stranger.newPage();
        for (const address of [`${url}/`, `${url}/?token=${token.slice(0, -2)}xx`, `${url}/api/v1/continuity`]) {
          const res = await page.goto(address, { waitUntil: "load" });
          expect(res?.status()).toBe(401);
          const shown = await page.$eval("body", (e) => (e as unknown as { innerText: string }).innerText);
          expect(shown).toContain("open the URL");
          expect(shown).not.toContain(NEXT);
          expect(shown).not.toContain("make the greeting configurable");
        }
      } finally {
        await stranger.close();
      }
    }, 60_000);
  },
);
