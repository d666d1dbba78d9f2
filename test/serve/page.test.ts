// The continuity page in a real headless Chromium (Debian's package, driven by puppeteer-core; no
// browser is downloaded): every card, for a fresh handover and for the same one gone stale; the
// one-time URL, reload and a second tab; and another server on 127.0.0.1, visited typed and through a
// link, which receives no credential. A screenshot of each is kept in test/artifacts/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChildProcess } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
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
  "uptake",
  "recovery",
  "providers",
  "trust",
];

const serve = (repo: Repo, env: Record<string, string> = {}) => startServe(repo.dir, env);

/** The text of each card, by its id, once the page's script has fetched them. */
async function cards(page: Page): Promise<Record<string, string>> {
  await page.waitForSelector("section#trust", { timeout: 120_000 });
  return page.$$eval("section", (sections) =>
    Object.fromEntries(sections.map((s) => [s.id, (s as unknown as { innerText: string }).innerText])),
  );
}

const bodyText = (page: Page) => page.$eval("body", (e) => (e as unknown as { innerText: string }).innerText);

/** Another server on 127.0.0.1 (any local program may run one): it keeps the headers of every request it gets. */
async function neighbour(): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>neighbour</title><p>another server</p>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, seen, server };
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
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      for (const s of servers) s.kill("SIGTERM");
      repo?.[Symbol.dispose]();
    });

    test("a fresh handover: every card, the Next Action quoted with its badges; the fragment leaves the address bar; reload and a second tab still show it", async () => {
      const { child, url, open } = await serve(repo);
      servers.push(child);
      const page = await browser.newPage();
      // The URL serve printed, opened as the person opens it: one click, the page, the secret gone from the address bar.
      const res = await page.goto(open, { waitUntil: "load" });
      expect(res?.status()).toBe(200);
      const text = await cards(page);
      expect(page.url()).toBe(`${url}/`);
      expect(Object.keys(text)).toEqual(CARDS);
      expect(text.resume).toContain("exact · fresh");
      expect(text.resume).toContain(NEXT);
      // The author's own account of where things stand, quoted before the Next Action.
      expect(text.resume).toMatch(/Objective\s+A\.\s+Current State\s+B\.\s+Next Action/);
      expect(text.checkout).toContain(repo.dir.split("/").at(-1)!);
      // Times in the person's zone, and how long ago.
      expect(text.closed).toMatch(/closed at \d{4}-\d\d-\d\d \d\d:\d\d UTC[+−]\d\d:\d\d \((just now|\d+m ago)\)/);
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
      await page.screenshot({ path: join(ARTIFACTS, "continuity-fresh.png"), fullPage: true });
      await page.reload({ waitUntil: "load" });
      expect((await cards(page)).resume).toContain(NEXT);
      const second = await browser.newPage();
      await second.goto(`${url}/`, { waitUntil: "load" });
      expect((await cards(second)).resume).toContain(NEXT);
      await second.close();
      await page.close();
    }, 300_000);

    test("another server on 127.0.0.1, visited typed and through a link after the page was used, receives no credential; after serve restarts, the old URL and the kept key open nothing", async () => {
      const other = await neighbour();
      try {
        const first = await serve(repo);
        servers.push(first.child);
        const page = await browser.newPage();
        await page.goto(first.open, { waitUntil: "load" });
        expect((await cards(page)).resume).toContain(NEXT);
        const key = await page.evaluate(() => localStorage.getItem("majordomus-session"));
        expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
        // Typed into the address bar, then one click on a link to it.
        await page.goto(`${other.url}/typed`, { waitUntil: "load" });
        await page.goto(`${first.url}/`, { waitUntil: "load" });
        await cards(page);
        await page.evaluate(
          `(() => { const a = document.createElement("a"); a.href = ${JSON.stringify(`${other.url}/linked`)}; a.textContent = "elsewhere"; document.body.append(a); a.click(); })()`,
        );
        await page.waitForFunction('document.title === "neighbour"', { timeout: 120_000 });
        expect(other.seen.length).toBeGreaterThanOrEqual(2);
        for (const headers of other.seen) {
          const all = JSON.stringify(headers);
          expect(headers.cookie).toBeUndefined();
          expect(headers.authorization).toBeUndefined();
          expect(all).not.toContain(key!);
          expect(all).not.toContain(first.token);
          expect(all).not.toContain(new URL(first.open).hash.slice("#launch=".length));
        }
        // serve stops; the next run (on the same port) knows neither the old URL's secret nor the kept key.
        first.child.kill("SIGTERM");
        await new Promise((r) => first.child.once("exit", r));
        const port = new URL(first.url).port;
        const again = await startServe(repo.dir, {}, ["--port", port]);
        servers.push(again.child);
        expect(again.url).toBe(first.url);
        await page.goto(first.open, { waitUntil: "load" });
        await page.waitForFunction('document.getElementById("say")?.textContent?.includes("serve")', {
          timeout: 120_000,
        });
        expect(await bodyText(page)).not.toContain(NEXT);
        expect(await page.evaluate(() => localStorage.getItem("majordomus-session"))).toBeNull();
        await page.close();
      } finally {
        other.server.close();
      }
    }, 300_000);

    test("a second browser (a fresh profile) gets in by pasting the token, never by a wrong one or another checkout's; the token itself is never kept; a rotation sends every page back to the form", async () => {
      const { child, url, token } = await serve(repo);
      servers.push(child);
      using elsewhere = captured();
      const other = await serve(elsewhere);
      servers.push(other.child);
      const profile = await browser.createBrowserContext();
      try {
        const page = await profile.newPage();
        await page.goto(`${url}/`, { waitUntil: "load" });
        await page.waitForSelector("form#enter input#token", { timeout: 120_000 });
        const paste = async (value: string) => {
          await page.type("#token", value);
          await page.click("form#enter button");
        };
        // Another checkout's token (another server on this machine) and a wrong one open nothing.
        for (const wrong of [other.token, `${token.slice(0, -4)}AAAA`]) {
          await paste(wrong);
          await page.waitForFunction('document.getElementById("say")?.textContent?.includes("not this checkout")', {
            timeout: 120_000,
          });
          expect(await bodyText(page)).not.toContain(NEXT);
        }
        await paste(token);
        expect((await cards(page)).resume).toContain(NEXT);
        const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }));
        expect(kept).not.toContain(token);
        // A rotation (another serve run with --rotate-token) revokes the key this page holds.
        const rotated = await startServe(repo.dir, {}, ["--rotate-token"]);
        servers.push(rotated.child);
        await page.waitForFunction('document.getElementById("say")?.textContent?.includes("no longer good")', {
          timeout: 120_000,
        });
        expect(await bodyText(page)).not.toContain(NEXT);
        await paste(rotated.token);
        expect((await cards(page)).resume).toContain(NEXT);
      } finally {
        await profile.close();
      }
    }, 450_000);

    test("serve --host 0.0.0.0 prints a URL a browser opens (on loopback)", async () => {
      const started = await startServe(repo.dir, {}, ["--host", "0.0.0.0"]);
      servers.push(started.child);
      expect(started.open).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#launch=/);
      const page = await browser.newPage();
      const res = await page.goto(started.open, { waitUntil: "load" });
      expect(res?.status()).toBe(200);
      expect((await cards(page)).resume).toContain(NEXT);
      await page.close();
    }, 300_000);

    test("with JavaScript off the page says why it needs it and shows nothing of the account", async () => {
      const { child, url } = await serve(repo);
      servers.push(child);
      const page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      const res = await page.goto(`${url}/`, { waitUntil: "load" });
      expect(res?.status()).toBe(200);
      const shown = await bodyText(page);
      expect(shown).toContain("needs JavaScript");
      expect(shown).toContain("/api/v1/");
      expect(shown).not.toContain(NEXT);
      await page.close();
    }, 300_000);

    test("the same handover five days later: stale, its Next Action withheld, absence stated where there is nothing", async () => {
      const { child, open } = await serve(repo, {
        MAJORDOMUS_NOW: new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString(),
      });
      servers.push(child);
      const page = await browser.newPage();
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
    }, 300_000);

    test("a browser without the key (a fresh profile, or a token in the URL) is shown how to get in, and nothing of the account", async () => {
      const { child, url, token } = await serve(repo);
      servers.push(child);
      const stranger = await browser.createBrowserContext();
      try {
        const page = await stranger.newPage();
        for (const address of [`${url}/`, `${url}/?token=${token}`, `${url}/#launch=${token}`]) {
          const res = await page.goto(address, { waitUntil: "load" });
          expect(res?.status()).toBe(200);
          await page.waitForFunction('document.getElementById("say")?.textContent?.includes("holds no key")', {
            timeout: 120_000,
          });
          const shown = await bodyText(page);
          expect(shown).not.toContain(NEXT);
          expect(shown).not.toContain("make the greeting configurable");
        }
        const api = await page.goto(`${url}/api/v1/continuity`, { waitUntil: "load" });
        expect(api?.status()).toBe(401);
        expect(await bodyText(page)).not.toContain(NEXT);
      } finally {
        await stranger.close();
      }
    }, 300_000);
  },
);
