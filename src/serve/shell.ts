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
  const say = (text) => {
    const p = document.createElement("p");
    p.id = "say";
    p.textContent = text;
    document.body.replaceChildren(p);
  };
  const launch = new URLSearchParams(location.hash.slice(1)).get("launch");
  if (launch) history.replaceState(null, "", "/");
  const traded = launch
    ? fetch("/api/v1/session", { method: "POST", headers: { ${JSON.stringify(LAUNCH_HEADER)}: launch } })
        .then((r) => (r.ok ? r.json() : undefined))
        .then((d) => d && localStorage.setItem(KEY, d.token))
    : Promise.resolve();
  const show = async () => {
    const key = localStorage.getItem(KEY);
    if (!key) return say("Open the URL \\u0060majordomus serve\\u0060 printed (it works once, for that run of serve).");
    const r = await fetch("/", { headers: { authorization: "Bearer " + key }, cache: "no-store" });
    if (r.status === 401) {
      localStorage.removeItem(KEY);
      return say("This key belongs to a run of serve that has ended: open the URL the running serve printed.");
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
