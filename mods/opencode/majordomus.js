// majordomus: keeps the agent's own account across opencode sessions and compactions.
// Written by `majordomus capture install`; a changed copy is rewritten by the next install, so
// edit it in the majordomus source, not here.
//
// opencode runs no command hooks: this plugin is the bridge. For each client event it runs the
// shim that `.opencode/majordomus/hooks.json` names for it (only a shim of majordomus's own, in
// `.opencode/majordomus/`), with the payload on stdin, as Claude Code runs its hooks:
// - session.created (or the first prompt of a resumed session): the start, whose briefing is added
//   to the system prompt of each of the session's requests;
// - chat.message: the prompt, archived; what it answers (a session opened beside) is said once;
// - experimental.session.compacting: the compaction (a derived checkpoint), then a fresh briefing;
//   with the fresh window on, its answer is the boot (the briefing and the agent's own handover),
//   which takes the place of opencode's summary in every later request of the session;
// - session.error: an API error ended the turn (at a 429, a usage or rate limit): a checkpoint at
//   once, and the next worker is told this session stopped there;
// - session.deleted, and the process's exit or a stopping signal: the end (killed outright with
//   SIGKILL, no end runs: the episode stays open until `majordomus recover` or a later start
//   closes it as interrupted).
// It decides nothing and writes nothing itself: every record is the binary's.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const HOOKS = ".opencode/majordomus/hooks.json";
/** The only commands this plugin runs: a shim of majordomus's own, by the project folder's variable. */
const OURS = /^"\$OPENCODE_PROJECT_DIR"\/\.opencode\/majordomus\/majordomus-[a-z-]+$/;
const START_WAIT_MS = 20_000;
/** opencode's own store of the session (read-only by majordomus at the end: what the agent did of its handover). */
const STORE = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode", "opencode.db");

function commandsFor(root, event) {
  let file;
  try {
    file = JSON.parse(readFileSync(join(root, HOOKS), "utf8"));
  } catch {
    return [];
  }
  const list = file?.hooks?.[event];
  return Array.isArray(list)
    ? list.filter((h) => h?.type === "command" && typeof h.command === "string" && OURS.test(h.command))
    : [];
}

const envFor = (root) => ({ ...process.env, OPENCODE_PROJECT_DIR: root });

/** Run one event's shims with the payload; their stdout, joined. Never throws: a hook that fails is skipped. */
function run(root, event, payload) {
  return Promise.all(
    commandsFor(root, event).map(
      (h) =>
        new Promise((resolve) => {
          const child = spawn("sh", ["-c", h.command], {
            cwd: root,
            env: envFor(root),
            stdio: ["pipe", "pipe", "inherit"],
          });
          let out = "";
          const timer = setTimeout(() => child.kill("SIGKILL"), (h.timeout ?? 20) * 1000);
          child.stdout.on("data", (d) => (out += d));
          child.on("error", () => resolve(""));
          child.on("close", () => {
            clearTimeout(timer);
            resolve(out.trim());
          });
          child.stdin.on("error", () => {});
          child.stdin.end(JSON.stringify(payload));
        }),
    ),
  ).then((outs) => outs.filter(Boolean).join("\n\n"));
}

/** The end at the process's exit: the only moment left, so it runs to its end before opencode goes. */
function runNow(root, event, payload) {
  for (const h of commandsFor(root, event))
    spawnSync("sh", ["-c", h.command], {
      cwd: root,
      env: envFor(root),
      input: JSON.stringify(payload),
      stdio: ["pipe", "ignore", "inherit"],
      timeout: (h.timeout ?? 10) * 1000,
    });
}

const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => p?.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");

export const Majordomus = async ({ worktree, directory }) => {
  const root = worktree || directory;
  /** Per session: its start (a promise of the briefing), notices to say once, and whether it ended. */
  const sessions = new Map();
  const session = (id) => {
    if (!sessions.has(id))
      sessions.set(id, { briefing: undefined, notices: [], ended: false, boot: undefined, boots: new Map() });
    return sessions.get(id);
  };
  const start = (id, source) => {
    const s = session(id);
    s.briefing ??= run(root, "session.created", { session_id: id, source, transcript_path: STORE });
    return s.briefing;
  };
  const end = (id, reason, now) => {
    const s = sessions.get(id);
    if (!s || s.ended || !s.briefing) return;
    s.ended = true;
    const payload = { session_id: id, reason };
    return now ? runNow(root, "session.end", payload) : run(root, "session.end", payload);
  };
  const endAll = () => {
    for (const id of sessions.keys()) end(id, "exit", true);
  };
  process.on("exit", endAll);
  // Stopped by a signal (`opencode serve` under SIGTERM): the ends run first; with no other listener, it then exits.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"])
    process.on(signal, () => {
      endAll();
      if (process.listenerCount(signal) === 1) process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
    });
  const bounded = (p) => Promise.race([p, new Promise((r) => setTimeout(() => r(""), START_WAIT_MS))]);

  return {
    event: async ({ event }) => {
      const id = event?.properties?.info?.id ?? event?.properties?.sessionID;
      if (!id) return;
      if (event.type === "session.created" && !event.properties.info?.parentID) void start(id, "startup");
      if (event.type === "session.compacted") {
        const s = session(id);
        // A boot carries the briefing; else the window starts from a fresh one.
        s.briefing = s.boot
          ? Promise.resolve("")
          : run(root, "session.created", { session_id: id, source: "compact", transcript_path: STORE });
      }
      if (event.type === "session.deleted") await end(id, "deleted", false);
      // An API error ended the turn: at a 429 the session stopped at its usage or rate limit.
      if (event.type === "session.error" && sessions.has(id)) {
        const error = event.properties.error;
        const status = error?.data?.statusCode;
        const name =
          status === 429
            ? "rate_limit"
            : String(error?.name ?? "unknown")
                .toLowerCase()
                .replace(/[^a-z0-9_]/g, "_");
        await run(root, "session.error", { session_id: id, error: name.slice(0, 40) });
      }
    },
    "chat.message": async (input, output) => {
      const id = input.sessionID;
      await bounded(start(id, "resume"));
      const said = await run(root, "chat.message", {
        session_id: id,
        prompt: textOf(output.parts),
        prompt_id: output.message?.id,
      });
      if (said) session(id).notices.push(said);
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input.sessionID;
      if (!id || !sessions.has(id)) return;
      const s = sessions.get(id);
      const briefing = await bounded(s.briefing);
      if (briefing) output.system.push(briefing);
      for (const n of s.notices.splice(0)) output.system.push(n);
    },
    "experimental.session.compacting": async (input, output) => {
      // A compaction asked of a session this process has not seen a prompt of (`/compact` first) resumes it.
      await bounded(start(input.sessionID, "resume"));
      const boot = await run(root, "experimental.session.compacting", { session_id: input.sessionID, trigger: "auto" });
      if (!boot) return;
      // The summary opencode asks for is never shown: the boot takes its place.
      session(input.sessionID).boot = boot;
      output.prompt = "Reply with the single word: compacted.";
    },
    // The boot in the place of the summary: the compaction's own message carries it, the summary says only that.
    "experimental.chat.messages.transform": async (_input, output) => {
      const summaries = output.messages.filter((m) => m.info?.role === "assistant" && m.info.summary === true);
      for (const m of summaries) {
        const s = sessions.get(m.info.sessionID);
        if (!s) continue;
        if (s.boot && m === summaries.at(-1) && !s.boots.has(m.info.id)) {
          s.boots.set(m.info.id, s.boot);
          s.boot = undefined;
        }
        const boot = s.boots.get(m.info.id);
        if (!boot) continue;
        const asked = output.messages.find((u) => u.info?.id === m.info.parentID);
        if (asked)
          asked.parts.push({
            type: "text",
            text: boot,
            synthetic: true,
            id: `${m.info.id}-boot`,
            sessionID: m.info.sessionID,
            messageID: asked.info.id,
          });
        for (const p of m.parts)
          if (p.type === "text") p.text = "(The window restarts from the majordomus boot above.)";
      }
    },
    // Commands the agent runs (`majordomus handover`) belong to this session's episode.
    "shell.env": async (input, output) => {
      if (input.sessionID) output.env.MAJORDOMUS_PROVIDER_SESSION = input.sessionID;
    },
  };
};
