/**
 * What a browser gets at `/` before it proves anything: no word of the account, one script. The printed URL's
 * fragment holds a one-time launch secret (never sent to a server); the script trades it for this run's session key,
 * keeps the key in the origin's storage, clears the fragment and fetches the page with the key as a header. Nothing a
 * browser sends by itself grants anything, so no other server on 127.0.0.1 gets a credential.
 */
import { createHash } from "node:crypto";

export const SESSION_KEY = "majordomus-session";
export const LAUNCH_HEADER = "x-majordomus-launch";
const REFRESH_MS = 5_000;

const SCRIPT = `(() => {
  const KEY = ${JSON.stringify(SESSION_KEY)};
  let asking = false;
  const say = (text) => {
    const p = document.createElement("p");
    p.id = "say";
    p.textContent = text;
    document.body.replaceChildren(p);
  };
  // The way back in without the printed URL: the person pastes the token only they can read; it is traded for a key
  // of this page and never kept.
  const ask = (why) => {
    asking = true;
    const p = document.createElement("p");
    p.id = "say";
    p.textContent = why;
    const form = document.createElement("form");
    form.id = "enter";
    const label = document.createElement("label");
    label.textContent = "Paste this checkout's token (\u0060cat .ai/local/state/serve.token\u0060 in it): ";
    const input = document.createElement("input");
    input.type = "password";
    input.id = "token";
    input.autocomplete = "off";
    label.append(input);
    const button = document.createElement("button");
    button.type = "submit";
    button.textContent = "Open the page";
    form.append(label, " ", button);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      // Taken and cleared at once, and the answer awaited in words: what is typed meanwhile is never wiped.
      const value = input.value.trim();
      input.value = "";
      p.textContent = "Checking the token…";
      fetch("/api/v1/session", { method: "POST", headers: { authorization: "Bearer " + value } })
        .then((r) => (r.ok ? r.json() : undefined))
        .then((d) => {
          if (!d) return void (p.textContent = "That is not this checkout's token (or it was rotated): try again.");
          localStorage.setItem(KEY, d.token);
          asking = false;
          return show();
        })
        .catch(() => (p.textContent = "The server did not answer; is serve still running?"));
    });
    document.body.replaceChildren(p, form);
    input.focus();
  };
  const launch = new URLSearchParams(location.hash.slice(1)).get("launch");
  if (launch) history.replaceState(null, "", "/");
  const traded = launch
    ? fetch("/api/v1/session", { method: "POST", headers: { ${JSON.stringify(LAUNCH_HEADER)}: launch } })
        .then((r) => (r.ok ? r.json() : undefined))
        .then((d) => d && localStorage.setItem(KEY, d.token))
    : Promise.resolve();
  const show = async () => {
    if (asking) return;
    const key = localStorage.getItem(KEY);
    if (!key) return ask("This browser holds no key for this run of serve (the URL it printed works once).");
    const r = await fetch("/", { headers: { authorization: "Bearer " + key }, cache: "no-store" });
    if (r.status === 401) {
      localStorage.removeItem(KEY);
      return ask("This page's key is no longer good: serve was restarted, or its token was rotated.");
    }
    const doc = new DOMParser().parseFromString(await r.text(), "text/html");
    doc.querySelectorAll("meta[http-equiv]").forEach((m) => m.remove());
    document.title = doc.title;
    document.head.replaceChildren(...doc.head.childNodes);
    document.body.replaceWith(doc.body);
  };
  traded.then(show).catch(() => say("The page could not be fetched; is serve still running?"));
  setInterval(() => show().catch(() => undefined), ${REFRESH_MS});
})();`;

export const SHELL_SCRIPT_HASH = `'sha256-${createHash("sha256").update(SCRIPT).digest("base64")}'`;

export const SHELL_HTML =
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>majordomus</title></head>
<body><p id="say">Loading this checkout's continuity…</p>
<noscript><p>The page needs JavaScript: it keeps its key to this port alone, where a ` +
  `cookie would go to every server on this host. Without it, read the same account from ` +
  `the JSON API (<code>/api/v1/</code>) with <code>Authorization: Bearer</code> and the ` +
  `token in <code>.ai/local/state/serve.token</code>.</p></noscript>
<script>${SCRIPT}</script>
</body></html>
`;
