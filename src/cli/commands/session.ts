import { redactOnRead } from "../../lib/redact.ts";
import { readLayerFile, RECORD_MAX_BYTES } from "../../lib/safe-read.ts";
import { join, relative } from "node:path";
import { Failure } from "../../lib/failure.ts";
import { workspace, type Workspace } from "../../workspace/workspace.ts";
import { divergence } from "../../records/labels.ts";
import { tickets, ticketsDir } from "../../hooks/handoff.ts";
import { readClosed } from "../../session/closed.ts";
import { closeEpisode } from "../../lifecycle/close.ts";
import { openEpisode } from "../../lifecycle/open.ts";
import { gatherSessionContext } from "../../facts/episode.ts";
import { sessionContextJson, sessionContextLines } from "../../views/session-context.ts";
import { listOpen, newestOpenFirst, readPointer, type OpenEpisode } from "../../session/store.ts";
import { names, pickEpisode } from "../../session/pick.ts";
import { jsonArg, limitArg, listLimit } from "../args.ts";
import { describeOpen, liveDelivery } from "../../facts/open-episode.ts";
import {
  closedContextLine,
  closedLine,
  deliveryLine,
  openedLines,
  openLines,
  shownOpenLines,
  statusLines,
} from "../../views/episodes.ts";
import { newestDeliveries } from "../../session/delivery.ts";
import { command } from "../define.ts";
import { readBody } from "../stdin.ts";
import { stdinIsTerminal } from "../../lib/stdin.ts";
import { out, err, olderLeftOut, outJson } from "../print.ts";

const providerArgs = {
  provider: { type: "string", description: "The client this episode belongs to (hooks pass it)" },
  "provider-session": { type: "string", description: "The client's own session id" },
} as const;

const start = command({
  meta: { name: "start", description: "Open an episode by hand (hooks open one per client session)" },
  examples: ["majordomus session start", "majordomus session start --provider claude-code --provider-session cc-1"],
  args: {
    "if-open": {
      type: "enum",
      options: ["refuse", "keep"],
      default: "refuse",
      description: "What to do when this episode is already open",
    },
    owner: { type: "string", description: "Who works in it (default $USER)" },
    worker: { type: "string", description: "An id for the agent or worker" },
    ...providerArgs,
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace(process.cwd(), args["provider-session"]);
    const opened = await openEpisode(ws, {
      ifOpen: args["if-open"] as "refuse" | "keep",
      // Whatever it names, a command a person typed opens the episode by hand (the hooks run `capture session`).
      openedBy: "hand",
      provider: args.provider,
      providerSession: args["provider-session"],
      owner: args.owner,
      worker: args.worker,
    });
    const e = opened.episode;
    if (args.json) return outJson("episode", { open: true, kept: opened.kept, episode: e });
    out(openedLines(e, opened.kept).join("\n"));
  },
});

const close = command({
  meta: {
    name: "close",
    description: "Close an episode into its shared record (an authored summary may come on stdin)",
  },
  examples: ["majordomus session close", "majordomus session close --outcome interrupted"],
  args: {
    outcome: {
      type: "enum",
      options: ["closed", "interrupted"],
      default: "closed",
      description: "closed or interrupted",
    },
    "if-none": {
      type: "enum",
      options: ["refuse", "ignore"],
      default: "refuse",
      description: "What to do when no episode is open",
    },
    ...providerArgs,
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace(process.cwd(), args["provider-session"]);
    const summary = stdinIsTerminal() ? undefined : readBody("majordomus session close");
    const policy = await ws.policy().catch(() => undefined);
    const closed = await closeEpisode(ws, {
      outcome: args.outcome as "closed" | "interrupted",
      providerSession: args["provider-session"],
      summary,
      policy,
    });
    if (closed.status === "none") {
      if (args["if-none"] === "ignore") return;
      throw new Failure(
        "missing",
        "no episode is open here for that session",
        "`majordomus session status` shows what is open",
      );
    }
    if (closed.status === "already") {
      err(`majordomus: episode ${closed.episode.session_id} already has its record; this close adds none`);
      return;
    }
    if (args.json)
      outJson("session-closed", {
        session_id: closed.episode.session_id,
        path: closed.path,
        committed: closed.committed ?? null,
      });
    else out(closed.path);
  },
});

type Ctx = Awaited<ReturnType<typeof workspace>>;

function several(ws: Ctx, open: OpenEpisode[], command: string): Failure {
  return new Failure(
    "missing",
    `${open.length} episodes are open in this checkout and this process belongs to none of them`,
    `name one: \`majordomus session ${command} <id>\` (an episode id or the client's session id)`,
    openLines(ws.at, newestOpenFirst(open)),
  );
}

const status = command({
  meta: {
    name: "status",
    description:
      "The episode this process belongs to (or the one open here), every other open one, and " +
      "hook work still being written",
  },
  examples: ["majordomus session status"],
  args: { ...jsonArg },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const picked = await pickEpisode(ws.layer, ws.position);
    const mine = picked.kind === "open" ? picked.episode : undefined;
    const open = await listOpen(ws.layer);
    const others = open.filter((o) => o.episode && o.episode.session_id !== mine?.session_id);
    const pointer = readPointer(ws.layer);
    // Work hooks handed off and their workers have not finished (or never will: see doctor).
    const dir = relative(ws.position.worktree, ticketsDir(ws.layer));
    const handed = tickets(ws.layer).map((t) => ({
      ticket: `${dir}/${t.name}.work`,
      event: t.event,
      age_ms: Math.round(t.ageMs),
      worker_lost: t.lost,
    }));
    const because = picked.kind === "open" ? picked.because : null;
    if (args.json) {
      outJson("session-status", {
        current: mine ? { ...(await describeOpen(ws, mine)), delivery: await liveDelivery(mine) } : null,
        because,
        pointer: pointer ?? null,
        others: await Promise.all(others.map((o) => describeOpen(ws, o.episode!))),
        handed_off: handed,
        problems: open.filter((o) => o.problem).map((o) => o.problem),
      });
      return;
    }
    const described = mine && { ...(await describeOpen(ws, mine)), delivery: await liveDelivery(mine) };
    out(
      statusLines({
        at: ws.at,
        mine: described,
        because,
        several: picked.kind === "several" ? picked.open.length : undefined,
        others: newestOpenFirst(others.map((o) => o.episode!)),
        handed,
      }).join("\n"),
    );
    for (const o of open.filter((x) => x.problem)) err(`majordomus: warning: ${o.problem}`);
  },
});

const list = command({
  meta: { name: "list", description: "Closed session records of this branch (or --all), newest first" },
  examples: ["majordomus session list", "majordomus session list --all --limit 0"],
  args: { all: { type: "boolean", description: "Every branch" }, ...limitArg, ...jsonArg },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const limit = listLimit(args.limit, true, "a listing");
    const listing = await readClosed(ws, { limit, branch: args.all ? undefined : ws.position.branch });
    const matching = listing.records.filter((r) => args.all || r.meta.branch === ws.position.branch);
    const rows = matching.slice(0, limit > 0 ? limit : undefined);
    const more = listing.more || rows.length < matching.length;
    for (const r of listing.rejected) err(`majordomus: warning: ${r.path}: ${r.reason}`);
    if (args.json)
      return outJson("session-list", {
        items: rows.map((r) => ({ path: r.path, ...r.meta })),
        rejected: listing.rejected,
        more,
      });
    if (rows.length === 0) return out(`no closed session records${args.all ? "" : ` on ${ws.position.branch}`}`);
    for (const r of rows)
      out(
        closedLine(
          r.meta,
          await divergence({ head: String(r.meta.end_head), branch: String(r.meta.branch) }, ws.position, "commits"),
          r.path,
        ),
      );
    if (more) olderLeftOut(rows.length);
  },
});

/** A closed record named by its episode id or its client's session id (the newest, when a client session closed more than one). */
async function findClosed(ws: Ctx, id: string) {
  const record = (await readClosed(ws)).records.find((r) =>
    names(r.meta as { session_id: unknown; provider_session?: unknown }, id),
  );
  if (!record)
    throw new Failure(
      "missing",
      `no open episode and no closed session record for ${id === "" ? "an empty id" : JSON.stringify(id)}`,
      "`majordomus session status` lists the open ones, `majordomus session list --all` the closed ones",
    );
  return record;
}

/** The open episode a command without an id is about, saying on stderr how it was chosen. */
async function chosen(
  ws: Ctx,
  id: string | undefined,
  command: string,
): Promise<{ open?: OpenEpisode; closedId?: string }> {
  const picked = await pickEpisode(ws.layer, ws.position, id);
  if (picked.kind === "several") throw several(ws, picked.open, command);
  if (picked.kind === "none")
    throw new Failure(
      "missing",
      "no episode is open in this checkout",
      `give a closed one's id: \`majordomus session ${command} <id>\` (\`majordomus session list\` lists them)`,
    );
  if (picked.kind === "closed-id") return { closedId: picked.id };
  if (picked.because === "the only open episode of this checkout")
    err(`majordomus: ${picked.episode.session_id} is the only open episode of this checkout; taking it`);
  return { open: picked.episode };
}

const show = command({
  meta: { name: "show", description: "Print one episode: an open one as it stands, a closed one's record" },
  examples: ["majordomus session show", "majordomus session show cc-1"],
  args: {
    id: {
      type: "positional",
      required: false,
      description:
        "An episode id (s-…) or the client's session id (default: the episode of this process, or the only open one)",
    },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const { open, closedId } = await chosen(ws, args.id === undefined ? undefined : String(args.id), "show");
    if (open) {
      const d = await describeOpen(ws, open);
      const delivery = await liveDelivery(open);
      if (args.json) return outJson("episode", { open: true, episode: { ...d, delivery } });
      return out(shownOpenLines(d, delivery).join("\n"));
    }
    const record = await findClosed(ws, closedId!);
    printClosed(ws, record, args.json === true);
  },
});

/** A closed record as `show` and `latest` print it: whole (redacted on read), with what its end recorded of delivery. */
function printClosed(ws: Workspace, record: Awaited<ReturnType<typeof findClosed>>, json: boolean): void {
  // What the ledger recorded at its end of what reached the model.
  const delivery =
    newestDeliveries(ws.layer, { session: String(record.meta.session_id) })
      .values()
      .next().value ?? null;
  if (json)
    return outJson("session-record", {
      open: false,
      path: record.path,
      meta: record.meta,
      body: redactOnRead(record.body),
      delivery: delivery ? { state: delivery.delivery, cause: delivery.cause } : null,
    });
  out(redactOnRead(readLayerFile(join(ws.position.worktree, record.path), { maxBytes: RECORD_MAX_BYTES })).trimEnd());
  if (delivery) out(`\n${deliveryLine({ state: delivery.delivery, cause: delivery.cause })}`);
}

const latest = command({
  meta: { name: "latest", description: "The newest closed session record of this branch" },
  examples: ["majordomus session latest", "majordomus session latest --path"],
  args: { path: { type: "boolean", description: "Print only its path" }, ...jsonArg },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const record = (await readClosed(ws, { limit: 1, branch: ws.position.branch })).records.find(
      (r) => r.meta.branch === ws.position.branch,
    );
    if (!record)
      throw new Failure(
        "missing",
        `no closed session record on ${ws.position.branch}`,
        "episodes leave one when they close",
      );
    if (args.path) return out(join(ws.position.worktree, record.path));
    printClosed(ws, record, args.json === true);
  },
});

const context = command({
  meta: {
    name: "context",
    description: "The working context of an episode, composed now (git now vs at open, what it recorded)",
  },
  examples: ["majordomus session context", "majordomus session context cc-1 --path"],
  args: {
    id: {
      type: "positional",
      required: false,
      description:
        "An episode id or the client's session id (default: the episode of this process, or the only open one)",
    },
    path: { type: "boolean", description: "Print only the path of the snapshot frozen at open" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const { open: episode, closedId } = await chosen(
      ws,
      args.id === undefined ? undefined : String(args.id),
      "context",
    );
    if (!episode) {
      const record = await findClosed(ws, closedId!);
      const id = String(record.meta.session_id);
      if (args.path)
        throw new Failure(
          "missing",
          `${id} is closed; its snapshot is named in ${record.path}`,
          "`majordomus session show` prints the record",
        );
      if (args.json) return outJson("session-context", { session_id: id, open: false, record: record.path });
      return out(closedContextLine(record.meta, record.path));
    }
    if (args.path) return out(join(ws.position.worktree, episode.context_path));
    const facts = await gatherSessionContext(ws, episode);
    if (args.json) return outJson("session-context", { open: true, ...sessionContextJson(facts) });
    out(sessionContextLines(facts).join("\n"));
  },
});

export default command({
  meta: { name: "session", description: "Episodes: one per client session, opened and closed by the client's hooks" },
  examples: ["majordomus session status", "majordomus session list"],
  subCommands: { start, close, status, list, show, latest, context },
});
