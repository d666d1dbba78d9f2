import { join, relative } from "node:path";
import { rmSync } from "node:fs";
import { switchOn } from "../policy/index.ts";
import { lockState } from "../lib/lock.ts";
import { pacedCollector } from "../lib/runtime.ts";
import { now, parseDuration } from "../lib/clock.ts";
import { git } from "../repo/git.ts";
import { PAGE } from "../lib/page.ts";
import { newestDeliveries } from "../session/delivery.ts";
import { undelivered } from "../transcript/delivery.ts";
import { tickets, ticketsDir } from "../hooks/handoff.ts";
import { claimsDir, inProgress, readClaims } from "../lifecycle/claim.ts";
import { strayTemps, sweepTemps } from "../lifecycle/sweep.ts";
import { openDir, openNames, readEpisode } from "../session/store.ts";
import { status, wiredProviders } from "../wiring/status.ts";
import { FILES_PER_COLLECTION } from "./verdicts.ts";
import { kindOf, type Failures } from "./ledger-scan.ts";
import type { Entry } from "../ledger/line.ts";
import { finding, fixable, type Finding } from "./findings.ts";
import type { Gathered } from "./gathered.ts";
import type { Workspace } from "../workspace/workspace.ts";

const FAILED = "majordomus history --event provider.event.failed";
const policyOf = async (g: Gathered) => {
  const p = await g.policy();
  return p instanceof Error ? undefined : p;
};

const failed = (level: Finding["level"], e: Entry, why: string) =>
  finding(level, "lifecycle", kindOf(e), `${e.ts}: ${e.reason} (${why})`, FAILED);

/** Hook failures not yet followed by a success of their kind; with `all`, the recovered ones too. */
function failureFindings(failures: Failures, all: boolean): Finding[] {
  const { current, recovered } = failures;
  const shown = current.newest.slice(-10);
  const out = shown.map((e) => failed("FAIL", e, `no later ${kindOf(e)} event has succeeded yet`));
  const more = current.count - shown.length;
  if (more > 0) out.push(finding("FAIL", "lifecycle", "failures", `${more} more unrecovered failure(s)`, FAILED));
  if (all) {
    out.push(...recovered.newest.map((e) => failed("INFO", e, `history: a later ${kindOf(e)} event succeeded`)));
    const older = recovered.count - recovered.newest.length;
    if (older > 0)
      out.push(finding("INFO", "lifecycle", "recovered", `${older} older recovered failure(s) besides these`, FAILED));
  } else if (recovered.count > 0) {
    const message = `${recovered.count} earlier hook failure(s), each followed by a successful event of its kind`;
    out.push(finding("INFO", "lifecycle", "recovered", message, "majordomus doctor --all"));
  }
  return out;
}

export async function lifecycleCheck(g: Gathered): Promise<Finding[]> {
  const [scan, policy] = await Promise.all([g.scan(), policyOf(g)]);
  const out = failureFindings(scan.failures, g.all);
  const received = "majordomus session status; majordomus history --event provider.event.received";
  const unclosed = (e: Entry) => `an end event arrived at ${e.ts} and the episode has no closed record`;
  out.push(...scan.unclosedEnds.map((e) => finding("FAIL", "lifecycle", e.session!, unclosed(e), received)));
  if (switchOn(policy?.policy, "session.checkpoint_on_compact")) {
    const how = "majordomus history --event task.checkpoint";
    const left = (e: Entry) => `a compaction at ${e.ts} left no checkpoint`;
    out.push(...scan.uncheckpointed.map((e) => finding("FAIL", "lifecycle", e.session!, left(e), how)));
  }
  return out;
}

export function handOffCheck(g: Gathered): Finding[] {
  const dir = relative(g.ws.position.worktree, ticketsDir(g.ws.layer));
  const read = "majordomus history --event provider.event.received  (delete the ticket once read)";
  return tickets(g.ws.layer)
    .filter((t) => t.lost)
    .map((t) => {
      const message =
        `the ${t.event} work a hook handed off ${Math.round(t.ageMs / 1000)} s ago never ` +
        `finished; its worker died`;
      return finding("FAIL", "lifecycle", `${dir}/${t.name}.work`, message, read);
    });
}

export function deliveryCheck(g: Gathered): Finding[] {
  return [...newestDeliveries(g.ws.layer).values()]
    .filter((d) => undelivered({ state: d.delivery }))
    .map((d) =>
      finding(
        "FAIL",
        "lifecycle",
        `${d.provider} session ${d.provider_session}`,
        `the briefing of episode ${d.session} was ${d.delivery} (${d.at}): ${d.cause}`,
        `majordomus session show ${d.session}`,
      ),
    );
}

export function claimsCheck(g: Gathered): Finding[] {
  const dir = relative(g.ws.position.worktree, claimsDir(g.ws.layer));
  return readClaims(g.ws.layer).map((r) => {
    if (!r.claim)
      return finding(
        "FAIL",
        "lifecycle",
        `${dir}/${r.episodeId}.claim`,
        r.problem ?? "unreadable claim",
        `cat ${dir}/${r.episodeId}.claim`,
      );
    if (inProgress(r.claim)) {
      const message = `its close is being written (claimed at ${r.claim.claimed_at} by a live process)`;
      return finding("INFO", "lifecycle", r.episodeId, message, "majordomus session status");
    }
    const message =
      `an end event claimed its close at ${r.claim.claimed_at}, and the process that took the claim is gone ` +
      "before the record was written";
    return fixable(
      finding("FAIL", "lifecycle", r.episodeId, message, "majordomus recover  (or majordomus doctor --fix)"),
    );
  });
}

export async function tempsCheck(g: Gathered): Promise<Finding[]> {
  const { temps } = await g.exposure();
  const message = "a temp file a killed writer left behind";
  const how = "majordomus doctor --fix (or majordomus recover)";
  return strayTemps(g.ws, { root: g.local, temps }).map((rel) => fixable(finding("WARN", "files", rel, message, how)));
}

export async function locksCheck(g: Gathered): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const path of (await g.exposure()).locks) {
    const rel = relative(g.ws.position.worktree, path);
    const seen = lockState(path);
    if (seen.state === "held")
      out.push(
        finding("INFO", "locks", rel, `held by process ${seen.holder?.pid ?? "?"}, which is alive`, `cat ${rel}`),
      );
    else if (seen.state === "stale") {
      const who = seen.holder ? `the process that took it (pid ${seen.holder.pid}) is gone` : "it names no holder";
      const message = `stale: ${who}; the next writer breaks it`;
      out.push(fixable(finding("WARN", "locks", rel, message, "majordomus doctor --fix")));
    }
  }
  return out;
}

/** Each open record read once and let go (thousands after a crash or two), the first PAGE of each kind said. */
export async function episodesCheck(g: Gathered): Promise<Finding[]> {
  const policy = await policyOf(g);
  const limit = parseDuration(policy?.policy.session?.stranded_after ?? "");
  const collect = pacedCollector(FILES_PER_COLLECTION);
  const bad: Finding[] = [];
  const stranded: Finding[] = [];
  for (const name of openNames(g.ws.layer)) {
    collect();
    const o = await readEpisode(join(openDir(g.ws.layer), name));
    if (o.problem) {
      bad.push(finding("FAIL", "episodes", name.slice(0, -".yaml".length), o.problem, "majordomus session status"));
      continue;
    }
    const { opened_at, session_id } = o.episode!;
    if (limit !== undefined && now().getTime() - Date.parse(opened_at) >= limit) {
      const message = `open since ${opened_at}, longer than session.stranded_after; it never closed`;
      stranded.push(fixable(finding("FAIL", "episodes", session_id, message, "majordomus recover --check")));
    }
  }
  const more = (list: Finding[], subject: string, what: string, how: string) =>
    list.length > PAGE ? [finding("FAIL", "episodes", subject, `${list.length - PAGE} more ${what}`, how)] : [];
  return [
    ...bad.slice(0, PAGE),
    ...stranded.slice(0, PAGE),
    ...more(bad, "unreadable", "open episode record(s) that cannot be read", "majordomus session status"),
    ...more(stranded, "stranded", "episode(s) open longer than session.stranded_after", "majordomus recover --check"),
  ];
}

const stateLevel = (state: string, aspect: string): Finding["level"] =>
  state === "verified" || (aspect === "mod" && state === "wired")
    ? "OK"
    : state === "unconfigured"
      ? "INFO"
      : state === "wired"
        ? "WARN"
        : "FAIL";

/** Every declared `enforcement` entry, and each installed client's aspects proven by running its shims. */
export async function wiringCheck(g: Gathered): Promise<Finding[]> {
  const rows = await status(g.ws, { verify: true });
  const entries = (await policyOf(g))?.policy.enforcement ?? [];
  const wired = wiredProviders(rows);
  const out: Finding[] = [];
  for (const row of rows.filter((r) => wired.has(r.provider) && r.state !== "unadapted" && r.state !== "unsupported")) {
    const hook = `provider-hook:${row.provider}`;
    const declared = entries.some(
      (e) => e.wired_by === `${hook}:${row.aspect}` || (row.aspect === "prompt" && e.wired_by === hook),
    );
    if (!declared)
      out.push(
        finding(
          stateLevel(row.state, row.aspect),
          "wiring",
          `${row.provider}:${row.aspect}`,
          `${row.state} — ${row.reason}`,
          "majordomus capture status",
        ),
      );
  }
  for (const entry of entries) {
    const [, provider, aspect = "prompt"] = /^provider-hook:([a-z0-9-]+)(?::(\w+))?$/.exec(entry.wired_by) ?? [];
    const row = rows.find((r) => r.provider === provider && r.aspect === aspect);
    const message = row
      ? `${entry.wired_by}: ${row.state} — ${row.reason}`
      : `${entry.wired_by}: no such provider or aspect`;
    const good = row !== undefined && stateLevel(row.state, aspect) === "OK";
    out.push(finding(good ? "OK" : "FAIL", "wiring", entry.name, message, "majordomus capture status"));
  }
  return out;
}

const PLANTED_BINARIES = ["bin/majordomus", ".majordomus/bin/majordomus"];
const PLANTED =
  "a majordomus the repository tracks: a program anyone can commit is a stranger's; no shim or command of " +
  "majordomus runs it (the shims run the binary `capture install` recorded, else the one on your PATH)";

export async function strangerCheck(g: Gathered): Promise<Finding[]> {
  const tracked = await git(g.ws.position.worktree, ["ls-files", "--", ...PLANTED_BINARIES]);
  const files = tracked.ok ? tracked.stdout.split("\n").filter((l) => l !== "") : [];
  return files.map((rel) => finding("WARN", "files", rel, PLANTED, `git log -- ${rel}`));
}

const fixed = (subject: string, message: string, reproduce = "majordomus session list") =>
  finding("INFO", "fix", subject, message, reproduce);

export async function repairClaims(ws: Workspace): Promise<Finding[]> {
  const { recoverClaims } = await import("../lifecycle/recover.ts");
  return (await recoverClaims(ws, {})).map((f) =>
    fixed(f.episodeId, `finished its close (${f.result}${f.path ? `, ${f.path}` : ""})`),
  );
}

export async function repairEpisodes(ws: Workspace): Promise<Finding[]> {
  const { recoverStranded } = await import("../lifecycle/recover.ts");
  const none = { closed: [] as Array<{ session_id: string }> };
  const stranded = await recoverStranded(ws, { limit: Number.MAX_SAFE_INTEGER }).catch(() => none);
  return stranded.closed.map((e) => fixed(e.session_id, "closed as interrupted (stranded)"));
}

export function repairTemps(ws: Workspace): Finding[] {
  return sweepTemps(ws).map((rel) => fixed(rel, "a temp file a killed writer left; removed", "majordomus doctor"));
}

export function repairLocks(ws: Workspace, found: readonly Finding[]): Finding[] {
  return found.flatMap((f) => {
    const path = join(ws.position.worktree, f.subject);
    if (lockState(path).state !== "stale") return [];
    rmSync(path, { force: true });
    return [fixed(f.subject, "a stale lock (its holder is gone); removed", "majordomus doctor")];
  });
}
