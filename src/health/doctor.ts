/**
 * `majordomus doctor`: the layer's health. Every record is read the way its reader reads it, every
 * declared wiring is proven by executing it, and every lost or failed piece of work the ledger
 * admits to is a finding. Read-only, apart from the throwaway folders the wiring self-tests use.
 */
import { newestDeliveries } from "../session/delivery.ts";
import { undelivered } from "../transcript/delivery.ts";
import { lstatSync, rmSync } from "node:fs";
import { lockState } from "../lib/lock.ts";
import { Verdicts } from "./verdicts.ts";
import { pathOf, statKey, Tree, type Exposure } from "./tree.ts";
import { mark } from "../lib/trace.ts";
import { isFailure } from "../lib/failure.ts";

/** Where doctor remembers the files it found good (see verdicts.ts), and how far it read the ledger (ledger-scan.ts). */
const VERDICTS_FILE = "doctor-verdicts.tsv";
const LEDGER_SCAN_FILE = "doctor-ledger.json";
import { join, relative } from "node:path";
import type { Workspace } from "../workspace/workspace.ts";
import { loadLayer, sectionPath, SECTIONS, type SectionName } from "../layer/manifest.ts";
import { notAFile, readLayerEntry, readLayerFileIfExists, unreadable } from "../lib/safe-read.ts";
import { kindOf, type Failures, type LedgerScan, type Scan } from "./ledger-scan.ts";
import { answer, ledgerScanOf, readBeside, valueOf, type BesideRequest } from "./beside.ts";
import { switchOn, type LoadedPolicy } from "../policy/index.ts";
import { describeMalformed, readQuestions } from "../questions/store.ts";
import { decisionsPath } from "../decisions/store.ts";
import { DERIVABLE_SECTIONS } from "../views/derived.ts";
import { FRONT_MATTER_KEYS, OPTIONAL_FRONT_MATTER_KEYS, RECORD_KINDS } from "../records/kinds.ts";
import { isRecordName, storeOf } from "../records/store.ts";
import { readRecord } from "../records/record.ts";
import { createHash, pacedCollector, parseYaml } from "../lib/runtime.ts";
import { FILES_PER_COLLECTION } from "./verdicts.ts";
import { now, parseDuration } from "../lib/clock.ts";
import { git } from "../repo/git.ts";
import { field } from "../lib/quote.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { status, wiredProviders } from "../wiring/status.ts";
import { tickets, ticketsDir } from "../hooks/handoff.ts";
import { claimsDir, inProgress, readClaims } from "../lifecycle/claim.ts";
import { strayTemps, sweepTemps } from "../lifecycle/sweep.ts";
import { RECORD_KEYS, TRANSCRIPT_KEYS } from "../session/schema.ts";
import { CONTEXT_KEYS } from "../lifecycle/open.ts";
import { openDir, openNames, readEpisode } from "../session/store.ts";
import { PAGE } from "../lib/page.ts";
import type { Finding } from "./findings.ts";

async function layerFindings(ws: Workspace, out: Finding[]): Promise<LoadedPolicy | undefined> {
  try {
    const strictLayer = await loadLayer(ws.position.worktree);
    void strictLayer;
    out.push({
      level: "OK",
      category: "layer",
      subject: "manifest",
      message: "valid ai-repository/v1",
      reproduce: "majordomus doctor",
    });
  } catch (err) {
    out.push({
      level: "FAIL",
      category: "layer",
      subject: "manifest",
      message: (err as Error).message,
      reproduce: "majordomus doctor",
    });
  }
  try {
    const policy = await ws.policy({ strict: true });
    out.push({
      level: "OK",
      category: "policy",
      subject: relative(ws.position.worktree, policy.path),
      message: "valid against its schema",
      reproduce: "majordomus policy",
    });
    const underivable = (policy.policy.handover?.required_sections ?? []).filter(
      (name) => !DERIVABLE_SECTIONS.includes(name),
    );
    if (underivable.length > 0 && switchOn(policy.policy, "session.handover_on_end")) {
      out.push({
        level: "WARN",
        category: "policy",
        subject: "handover.required_sections",
        message: `names ${underivable.join(", ")}, which no derivation writes: a session end closes its episode without a continuation record (an agent's own handover must fill them, and is not affected)`,
        reproduce: "majordomus handover --derive",
      });
    }
    return policy;
  } catch (err) {
    const e = err as Error & { details?: string[] };
    out.push({
      level: "FAIL",
      category: "policy",
      subject: "policy.yaml",
      message: [e.message, ...(e.details ?? [])].join("; "),
      reproduce: "majordomus policy",
    });
    return undefined;
  }
}

/** What git says of the local half: whether it ignores it, and what of it it tracks (asked while the files are read). */
async function gitPrivacy(ws: Workspace, local: string): Promise<{ probe: string; ignored: boolean; tracked: string }> {
  const root = ws.position.worktree;
  const probe = relative(root, join(local, "state", "ledger.jsonl"));
  const [ignored, tracked] = await Promise.all([
    git(root, ["check-ignore", "-q", "--no-index", probe]),
    git(root, ["ls-files", "--", relative(root, local)]),
  ]);
  return { probe, ignored: ignored.status === 0, tracked: tracked.stdout.trim() };
}

/** What doctor says of the local half's files git tracks: which, and how to untrack them (as every briefing says). */
function trackedMessage(files: readonly string[], rel: string): string {
  const named = files.slice(0, 3).map((f) => field(f));
  const more = files.length > named.length ? ` and ${files.length - named.length} more` : "";
  return `tracked by git: ${named.join(", ")}${more}; a checkout can replace them, so nothing in them is believed (its task, ledger, records, consent or token). Untrack them, keeping the files: git rm -r --cached ${rel}, then commit`;
}

/** The privacy findings: git's answer, and the modes and links the walks found (files' modes as their reads saw them). */
function privacyFindings(
  ws: Workspace,
  local: string,
  said: { probe: string; ignored: boolean; tracked: string },
  exposure: Exposure,
): Finding[] {
  const root = ws.position.worktree;
  const out: Finding[] = [];
  const { probe } = said;
  out.push(
    said.ignored
      ? {
          level: "OK",
          category: "privacy",
          subject: relative(root, local),
          message: "ignored by git",
          reproduce: `git check-ignore -v ${probe}`,
        }
      : {
          level: "FAIL",
          category: "privacy",
          subject: relative(root, local),
          message: "not ignored by git: its files could be committed",
          reproduce: `git check-ignore -v ${probe}`,
        },
  );
  if (said.tracked !== "")
    out.push({
      level: "FAIL",
      category: "privacy",
      subject: relative(root, local),
      message: trackedMessage(said.tracked.split("\n"), relative(root, local)),
      reproduce: `git ls-files ${relative(root, local)}`,
    });
  const open = exposure.openDirs;
  for (const d of open)
    out.push({
      level: "FAIL",
      category: "privacy",
      subject: relative(root, d.path),
      message: `folder mode ${d.mode.toString(8)}; private folders are 0700`,
      reproduce: `ls -ld ${relative(root, d.path)}`,
    });
  const readable = exposure.readableFiles;
  for (const f of readable.slice(0, 20))
    out.push({
      level: "FAIL",
      category: "privacy",
      subject: relative(root, f.path),
      message: `file mode ${f.mode.toString(8)}; private files are 0600`,
      reproduce: `ls -l ${relative(root, f.path)}`,
    });
  for (const l of exposure.links.slice(0, 20))
    out.push({
      level: "FAIL",
      category: "privacy",
      subject: relative(root, l),
      message:
        "a symbolic link inside the local half; majordomus never follows one, so what it points at is not checked",
      reproduce: `ls -l ${relative(root, l)}`,
    });
  if (open.length === 0 && readable.length === 0)
    out.push({
      level: "OK",
      category: "privacy",
      subject: relative(root, local),
      message: "folders 0700, files 0600",
      reproduce: `ls -lR ${relative(root, local)}`,
    });
  return out;
}

/** Two walks' findings as one, each list in path order. */
function joined(a: Exposure, b: Exposure | undefined): Exposure {
  if (!b) return a;
  const byPath = (x: { path: string }, y: { path: string }) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  return {
    openDirs: [...a.openDirs, ...b.openDirs].sort(byPath),
    readableFiles: [...a.readableFiles, ...b.readableFiles].sort(byPath),
    links: [...a.links, ...b.links].sort(),
    locks: [...a.locks, ...b.locks].sort(),
    temps: [...a.temps, ...b.temps].sort(),
  };
}

/** The records of every kind (handovers, checkpoints): files the first run reads by the ten thousand. */
async function recordFindings(ws: Workspace, tree: Tree, verdicts: Verdicts, out: Finding[]): Promise<void> {
  const root = ws.position.worktree;
  const collect = pacedCollector(FILES_PER_COLLECTION);
  for (const kind of Object.values(RECORD_KINDS)) {
    const store = storeOf(ws.layer, kind);
    let count = 0;
    let bad = 0;
    for (const entry of tree.entries(store.dir, false)) {
      if (!isRecordName(entry.name)) continue;
      count++;
      const path = pathOf(entry);
      if (verdicts.remembering && verdicts.good(path, tree.keyAt(entry))) continue;
      // Only a read leaves garbage worth collecting.
      collect();
      let key = "";
      const parsed = await readRecord(kind, path, entry.name, (stats) => {
        tree.sawAt(entry, stats);
        key = statKey(stats);
      });
      if (parsed.ok) verdicts.mark(path, key);
      else {
        bad++;
        out.push({
          level: "FAIL",
          category: "records",
          subject: relative(root, path),
          message: parsed.reason,
          reproduce: `majordomus ${kind.name} --list`,
        });
      }
    }
    if (bad === 0)
      out.push({
        level: "OK",
        category: "records",
        subject: kind.section,
        message: `${count} ${kind.noun} record(s), all readable with only declared keys`,
        reproduce: `majordomus ${kind.name} --list`,
      });
  }
}

/** The session contexts (their front matter and their lines). */
async function contextFindings(ws: Workspace, tree: Tree, out: Finding[]): Promise<void> {
  const root = ws.position.worktree;
  const contexts = sectionPath(ws.layer, "session_contexts");
  for (const entry of tree.entries(contexts).filter((e) => e.name.endsWith(".md") && e.name !== "README.md")) {
    const f = pathOf(entry);
    const read = readLayerEntry(f);
    tree.sawAt(entry, read.stats);
    const split = splitFrontMatter(read.text);
    const meta = split
      ? ((await parseYaml(split.frontMatter).catch(() => undefined)) as Record<string, unknown> | undefined)
      : undefined;
    const problem = !meta
      ? "no readable front matter"
      : meta.schema !== "session-context/v1"
        ? `schema ${JSON.stringify(meta.schema)}`
        : Object.keys(meta).find((k) => !(CONTEXT_KEYS as readonly string[]).includes(k))
          ? `undeclared key ${Object.keys(meta).find((k) => !(CONTEXT_KEYS as readonly string[]).includes(k))}`
          : split!.body.split("\n").find((l) => new RegExp(`^(${TRANSCRIPT_KEYS.join("|")})[: ]`, "i").test(l))
            ? "carries a conversation line"
            : undefined;
    if (problem)
      out.push({
        level: "FAIL",
        category: "contexts",
        subject: relative(root, f),
        message: problem,
        reproduce: `head -20 ${relative(root, f)}`,
      });
  }
}

/** The hook failures the session contexts' log holds, each against the ledger's later successes. */
function contextLogFindings(ws: Workspace, failures: Failures, out: Finding[]): void {
  const root = ws.position.worktree;
  const contexts = sectionPath(ws.layer, "session_contexts");
  const log = join(contexts, ".session-context.log");
  let text: string;
  try {
    // Read as the layer's files are: never through a link, never waiting on a FIFO.
    text = readLayerFileIfExists(log) ?? "";
  } catch (err) {
    out.push({
      level: "FAIL",
      category: "contexts",
      subject: relative(root, log),
      message: unreadable(err, log),
      reproduce: `ls -l ${relative(root, log)}`,
    });
    return;
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  // A line a hook's failure wrote (`<ts> <provider> <event> …`) is history once a later event of
  // its kind succeeded, like the ledger's failure line beside it.
  const current = lines.filter((l) => {
    const [, ts, provider, event] = /^(\S+) (\S+) (start|compact|end|prompt)\b/.exec(l) ?? [];
    const success = ts ? failures.lastSuccessAt.get(`${provider} ${event}`) : undefined;
    return !(success !== undefined && Date.parse(success) >= Date.parse(ts!));
  });
  if (current.length > 0)
    out.push({
      level: "FAIL",
      category: "contexts",
      subject: relative(root, log),
      message: `${current.length} logged failure(s) not yet followed by a success; last: ${current.at(-1)}`,
      reproduce: `cat ${relative(root, log)}  (delete it once read)`,
    });
  else if (lines.length > 0)
    out.push({
      level: "INFO",
      category: "contexts",
      subject: relative(root, log),
      message: `${lines.length} logged failure(s), all followed by a successful event of their kind`,
      reproduce: `cat ${relative(root, log)}`,
    });
}

/** The open questions and the decisions. */
function fileFindings(ws: Workspace, out: Finding[]): void {
  const root = ws.position.worktree;
  try {
    const questions = readQuestions(ws.layer);
    for (const m of describeMalformed(questions))
      out.push({
        level: "FAIL",
        category: "questions",
        subject: "open-questions.md",
        message: m,
        reproduce: "majordomus question list",
      });
  } catch (err) {
    if (!isFailure(err)) throw err;
    out.push({
      level: "FAIL",
      category: "questions",
      subject: "open-questions.md",
      message: err.message,
      reproduce: "majordomus question list",
    });
  }
  // decisions.md is read leniently (a missing one is no decisions); one that is not a file is said.
  const decisions = decisionsPath(ws.layer);
  const kept = lstatSync(decisions, { throwIfNoEntry: false });
  if (kept && !kept.isFile())
    out.push({
      level: "FAIL",
      category: "decisions",
      subject: relative(root, decisions),
      message: notAFile(decisions).message,
      reproduce: `ls -ld ${relative(root, decisions)}`,
    });
}

/** The ledger's own line problems, as its pass found them. */
function ledgerLineFindings(ledger: LedgerScan | undefined, out: Finding[]): void {
  const lineProblems = ledger?.findings ?? [];
  for (const f of lineProblems)
    out.push({
      level: "FAIL",
      category: "ledger",
      subject: `line ${f.line}`,
      message: f.problem,
      reproduce: "majordomus history --validate",
    });
  if (ledger && ledger.problems > lineProblems.length)
    out.push({
      level: "FAIL",
      category: "ledger",
      subject: "lines",
      message: `${ledger.problems - lineProblems.length} more line problem(s)`,
      reproduce: "majordomus history --validate",
    });
}

/** What the ledger admits to: failed work still unrecovered, and receipts that produced no record. */
function lifecycleFindings(policy: LoadedPolicy | undefined, scan: Scan, all: boolean, out: Finding[]): void {
  const failures = scan.failures;
  const shown = failures.current.newest.slice(-10);
  for (const e of shown) {
    out.push({
      level: "FAIL",
      category: "lifecycle",
      subject: kindOf(e),
      message: `${e.ts}: ${e.reason} (no later ${kindOf(e)} event has succeeded yet)`,
      reproduce: "majordomus history --event provider.event.failed",
    });
  }
  if (failures.current.count > shown.length)
    out.push({
      level: "FAIL",
      category: "lifecycle",
      subject: "failures",
      message: `${failures.current.count - shown.length} more unrecovered failure(s)`,
      reproduce: "majordomus history --event provider.event.failed",
    });
  const recovered = failures.recovered;
  if (all) {
    for (const e of recovered.newest)
      out.push({
        level: "INFO",
        category: "lifecycle",
        subject: kindOf(e),
        message: `${e.ts}: ${e.reason} (history: a later ${kindOf(e)} event succeeded)`,
        reproduce: "majordomus history --event provider.event.failed",
      });
    if (recovered.count > recovered.newest.length)
      out.push({
        level: "INFO",
        category: "lifecycle",
        subject: "recovered",
        message: `${recovered.count - recovered.newest.length} older recovered failure(s) besides these`,
        reproduce: "majordomus history --event provider.event.failed",
      });
  } else if (recovered.count > 0) {
    out.push({
      level: "INFO",
      category: "lifecycle",
      subject: "recovered",
      message: `${recovered.count} earlier hook failure(s), each followed by a successful event of its kind`,
      reproduce: "majordomus doctor --all",
    });
  }
  for (const e of scan.unclosedEnds) {
    out.push({
      level: "FAIL",
      category: "lifecycle",
      subject: e.session!,
      message: `an end event arrived at ${e.ts} and the episode has no closed record`,
      reproduce: `majordomus session status; majordomus history --event provider.event.received`,
    });
  }
  if (switchOn(policy?.policy, "session.checkpoint_on_compact")) {
    for (const e of scan.uncheckpointed)
      out.push({
        level: "FAIL",
        category: "lifecycle",
        subject: e.session!,
        message: `a compaction at ${e.ts} left no checkpoint`,
        reproduce: "majordomus history --event task.checkpoint",
      });
  }
}

/**
 * Episodes whose record cannot be read, and episodes open longer than `session.stranded_after`:
 * each read once and let go (a layer after a crash or two holds thousands), the first PAGE of each
 * said, and how many more.
 */
async function strandedFindings(ws: Workspace, policy: LoadedPolicy | undefined, out: Finding[]): Promise<void> {
  const limit = parseDuration(policy?.policy.session?.stranded_after ?? "");
  const collect = pacedCollector(FILES_PER_COLLECTION);
  let unreadable = 0;
  let stranded = 0;
  for (const name of openNames(ws.layer)) {
    collect();
    const o = await readEpisode(join(openDir(ws.layer), name));
    if (o.problem) {
      if (unreadable++ < PAGE)
        out.push({
          level: "FAIL",
          category: "episodes",
          subject: name.slice(0, -".yaml".length),
          message: o.problem,
          reproduce: "majordomus session status",
        });
      continue;
    }
    const age = now().getTime() - Date.parse(o.episode!.opened_at);
    if (limit !== undefined && age >= limit && stranded++ < PAGE)
      out.push({
        level: "FAIL",
        category: "episodes",
        subject: o.episode!.session_id,
        message: `open since ${o.episode!.opened_at}, longer than session.stranded_after; it never closed`,
        reproduce: "majordomus recover --check",
      });
  }
  if (unreadable > PAGE)
    out.push({
      level: "FAIL",
      category: "episodes",
      subject: "unreadable",
      message: `${unreadable - PAGE} more open episode record(s) that cannot be read`,
      reproduce: "majordomus session status",
    });
  if (stranded > PAGE)
    out.push({
      level: "FAIL",
      category: "episodes",
      subject: "stranded",
      message: `${stranded - PAGE} more episode(s) open longer than session.stranded_after`,
      reproduce: "majordomus recover --check",
    });
}

/** Closes an end event claimed whose taker died before the record existed: a promise `recover` (or `doctor --fix`) keeps. */
function claimFindings(ws: Workspace, out: Finding[]): void {
  const dir = relative(ws.position.worktree, claimsDir(ws.layer));
  for (const r of readClaims(ws.layer)) {
    if (!r.claim) {
      out.push({
        level: "FAIL",
        category: "lifecycle",
        subject: `${dir}/${r.episodeId}.claim`,
        message: r.problem ?? "unreadable claim",
        reproduce: `cat ${dir}/${r.episodeId}.claim`,
      });
      continue;
    }
    if (inProgress(r.claim))
      out.push({
        level: "INFO",
        category: "lifecycle",
        subject: r.episodeId,
        message: `its close is being written (claimed at ${r.claim.claimed_at} by a live process)`,
        reproduce: "majordomus session status",
      });
    else
      out.push({
        level: "FAIL",
        category: "lifecycle",
        subject: r.episodeId,
        message: `an end event claimed its close at ${r.claim.claimed_at}, and the process that took the claim is gone before the record was written`,
        reproduce: "majordomus recover  (or majordomus doctor --fix)",
      });
  }
}

/** Every lock file in the local half, and whether a live process holds it (a stale one is broken by the next writer, or by --fix). */
function lockFindings(ws: Workspace, locks: readonly string[], fix: boolean, out: Finding[]): void {
  const root = ws.position.worktree;
  for (const path of locks) {
    const rel = relative(root, path);
    const seen = lockState(path);
    if (seen.state === "held")
      out.push({
        level: "INFO",
        category: "locks",
        subject: rel,
        message: `held by process ${seen.holder?.pid ?? "?"}, which is alive`,
        reproduce: `cat ${rel}`,
      });
    else if (seen.state === "stale") {
      if (fix) rmSync(path, { force: true });
      out.push({
        level: fix ? "INFO" : "WARN",
        category: "locks",
        subject: rel,
        message: fix
          ? "stale (its holder is gone); removed"
          : `stale: ${seen.holder ? `the process that took it (pid ${seen.holder.pid}) is gone` : "it names no holder"}; the next writer breaks it`,
        reproduce: "majordomus doctor --fix",
      });
    }
  }
}

/** Work a hook handed to a detached worker that never gave its ticket back (hooks/handoff.ts). */
function handOffFindings(ws: Workspace, out: Finding[]): void {
  const dir = relative(ws.position.worktree, ticketsDir(ws.layer));
  for (const t of tickets(ws.layer).filter((t) => t.lost)) {
    out.push({
      level: "FAIL",
      category: "lifecycle",
      subject: `${dir}/${t.name}.work`,
      message: `the ${t.event} work a hook handed off ${Math.round(t.ageMs / 1000)} s ago never finished; its worker died`,
      reproduce: `majordomus history --event provider.event.received  (delete the ticket once read)`,
    });
  }
}

/** The newest briefing each client was handed, as its end recorded it: a collapsed or missing one fails, naming the cause. */
function deliveryFindings(ws: Workspace, out: Finding[]): void {
  for (const d of newestDeliveries(ws.layer).values()) {
    if (!undelivered({ state: d.delivery })) continue;
    out.push({
      level: "FAIL",
      category: "lifecycle",
      subject: `${d.provider} session ${d.provider_session}`,
      message: `the briefing of episode ${d.session} was ${d.delivery} (${d.at}): ${d.cause}`,
      reproduce: `majordomus session show ${d.session}`,
    });
  }
}

/**
 * The wiring: every entry the policy's `enforcement` declares, and, for each client with anything
 * installed here, each of its aspects proven by executing its shims (a drifted shim is never run).
 */
async function wiringFindings(ws: Workspace, policy: LoadedPolicy | undefined, out: Finding[]): Promise<void> {
  const entries = policy?.policy.enforcement ?? [];
  const rows = await status(ws, { verify: true });
  const wired = wiredProviders(rows);
  for (const row of rows.filter((r) => wired.has(r.provider) && r.state !== "unadapted" && r.state !== "unsupported")) {
    const declared = entries.some(
      (e) =>
        e.wired_by === `provider-hook:${row.provider}:${row.aspect}` ||
        (row.aspect === "prompt" && e.wired_by === `provider-hook:${row.provider}`),
    );
    if (declared) continue;
    const level =
      row.state === "verified" || (row.aspect === "mod" && row.state === "wired")
        ? "OK"
        : row.state === "unconfigured"
          ? "INFO"
          : row.state === "wired"
            ? "WARN"
            : "FAIL";
    out.push({
      level,
      category: "wiring",
      subject: `${row.provider}:${row.aspect}`,
      message: `${row.state} — ${row.reason}`,
      reproduce: "majordomus capture status",
    });
  }
  for (const entry of entries) {
    const [, provider, aspect = "prompt"] = /^provider-hook:([a-z0-9-]+)(?::(\w+))?$/.exec(entry.wired_by) ?? [];
    const row = rows.find((r) => r.provider === provider && r.aspect === aspect);
    const good = row && (row.state === "verified" || (aspect === "mod" && row.state === "wired"));
    out.push({
      level: good ? "OK" : "FAIL",
      category: "wiring",
      subject: entry.name,
      message: row
        ? `${entry.wired_by}: ${row.state} — ${row.reason}`
        : `${entry.wired_by}: no such provider or aspect`,
      reproduce: "majordomus capture status",
    });
  }
}

/** Where a repository might put a majordomus of its own: a tracked one is a stranger's program, which nothing of majordomus runs. */
const PLANTED_BINARIES = ["bin/majordomus", ".majordomus/bin/majordomus"];

async function strangerFindings(ws: Workspace, out: Finding[]): Promise<void> {
  const { git } = await import("../repo/git.ts");
  const tracked = await git(ws.position.worktree, ["ls-files", "--", ...PLANTED_BINARIES]);
  for (const rel of tracked.ok ? tracked.stdout.split("\n").filter((l) => l !== "") : []) {
    out.push({
      level: "WARN",
      category: "files",
      subject: rel,
      message:
        "a majordomus the repository tracks: a program anyone can commit is a stranger's; no shim or command of majordomus runs it (the shims run the binary `capture install` recorded, else the one on your PATH)",
      reproduce: `git log -- ${rel}`,
    });
  }
}

/** What a verdict on a record depends on: the schemas and keys this build reads, as a short digest. */
function recordVocabulary(): string {
  const words = [
    ...Object.values(RECORD_KINDS).map((k) => k.schema),
    ...FRONT_MATTER_KEYS,
    ...OPTIONAL_FRONT_MATTER_KEYS,
    ...RECORD_KEYS,
    ...TRANSCRIPT_KEYS,
    ...CONTEXT_KEYS,
  ];
  return createHash("sha256", words.join(" ")).slice(0, 16);
}

/**
 * Whether an earlier run's verdicts are kept here, so this run reads only the records and ledger
 * lines that changed since. Such a run is best without the JIT; a first one, which reads and checks
 * every record, keeps the JIT's first tiers and goes without its last (whose compiles on threads
 * of their own cost a one-second run more than they save). Measured on a layer of 40,000 files and
 * a 200,000-line ledger, paired: a later run without the JIT took 98 MiB instead of 129 for 1.29x
 * the time; a first run without the last tier takes 0.89x the CPU and 0.90x the time.
 */
export function remembers(ws: Workspace): boolean {
  const verdicts = cacheFile(ws, VERDICTS_FILE);
  return verdicts !== undefined && lstatSync(verdicts, { throwIfNoEntry: false })?.isFile() === true;
}

/** Where doctor keeps `name` between runs; nowhere when the manifest declares no cache section (reported as such). */
function cacheFile(ws: Workspace, name: string): string | undefined {
  return ws.layer.manifest.sections.cache === undefined ? undefined : join(sectionPath(ws.layer, "cache"), name);
}

export async function doctor(ws: Workspace, options: { all?: boolean; fix?: boolean } = {}): Promise<Finding[]> {
  const out: Finding[] = [];
  if (options.fix) {
    // What doctor can repair without asking: the closes a dead taker left, and stranded episodes.
    const { recoverClaims, recoverStranded } = await import("../lifecycle/recover.ts");
    for (const f of await recoverClaims(ws, {}))
      out.push({
        level: "INFO",
        category: "fix",
        subject: f.episodeId,
        message: `finished its close (${f.result}${f.path ? `, ${f.path}` : ""})`,
        reproduce: "majordomus session list",
      });
    const stranded = await recoverStranded(ws, { limit: Number.MAX_SAFE_INTEGER }).catch(() => ({
      closed: [] as Array<{ session_id: string }>,
    }));
    for (const e of stranded.closed)
      out.push({
        level: "INFO",
        category: "fix",
        subject: e.session_id,
        message: "closed as interrupted (stranded)",
        reproduce: "majordomus session list",
      });
    for (const rel of sweepTemps(ws))
      out.push({
        level: "INFO",
        category: "fix",
        subject: rel,
        message: "a temp file a killed writer left; removed",
        reproduce: "majordomus doctor",
      });
  }
  const running = new Set(
    tickets(ws.layer)
      .filter((t) => !t.lost)
      .map((t) => t.event),
  );
  // One pass over the ledger from where the last run stopped, each line checked as it goes by, and
  // the closed records: on a second core, while this one walks the local half and reads its
  // records. What they find is said where it always was.
  const ledgerAt = out.length;
  const ledgerCache = cacheFile(ws, LEDGER_SCAN_FILE);
  const verdictsFile = cacheFile(ws, VERDICTS_FILE);
  const request: BesideRequest = {
    ledger: { path: ws.ledger.path, ...(ledgerCache ? { cacheFile: ledgerCache } : {}), running: [...running] },
    closed: { dir: sectionPath(ws.layer, "sessions") },
    prompts: { dir: sectionPath(ws.layer, "prompts") },
    worktree: ws.position.worktree,
    verdicts: { ...(verdictsFile ? { file: verdictsFile } : {}), vocabulary: recordVocabulary() },
  };
  // A later run (the verdicts kept) reads only what changed, and is done sooner on one thread than
  // a second one starts and reads its own copy of the verdicts; a first run reads everything.
  let walked: (v: { verdicts: Verdicts }) => void = () => undefined;
  const mine = new Promise<{ verdicts: Verdicts }>((resolve) => (walked = resolve));
  const beside = remembers(ws) ? undefined : readBeside(request, () => mine);
  const policy = await layerFindings(ws, out);
  // The wiring is proven by running the shims as the clients would: processes that run on another
  // core while the records below are read. Their findings are reported last, as always.
  const proven: Finding[] = [];
  const proving = wiringFindings(ws, policy, proven).then(() => strangerFindings(ws, proven));
  // Its failure, if any, is thrown where it is awaited, as before; never an unhandled rejection meanwhile.
  proving.catch(() => undefined);
  for (const name of Object.keys(SECTIONS) as SectionName[]) {
    if (ws.layer.manifest.sections[name] === undefined)
      out.push({
        level: "WARN",
        category: "layer",
        subject: `sections.${name}`,
        message: "not declared in the manifest; commands that need it exit 12",
        reproduce: "majordomus init --extend",
      });
  }
  // The local half is walked here but for the prompts, which the reads beside walk with their own.
  const local = join(ws.layer.dir, ws.layer.manifest.local.path);
  const asking = gitPrivacy(ws, local);
  const privacyAt = out.length;
  const verdicts = new Verdicts(verdictsFile, recordVocabulary());
  const tree = new Tree(local, [request.prompts.dir], verdicts.remembering);
  mark("doctor: local half walked");
  walked({ verdicts });
  await recordFindings(ws, tree, verdicts, out);
  const contexts: Finding[] = [];
  await contextFindings(ws, tree, contexts);
  const files: Finding[] = [];
  fileFindings(ws, files);
  // What needs nothing the reads beside find is read while they finish, and said where it always was.
  const handedOff: Finding[] = [];
  handOffFindings(ws, handedOff);
  const delivered: Finding[] = [];
  deliveryFindings(ws, delivered);
  const claimed: Finding[] = [];
  claimFindings(ws, claimed);
  const episodes: Finding[] = [];
  await strandedFindings(ws, policy, episodes);
  mark("doctor: records and episodes read");
  const read = beside ? await beside : { ...(await answer(request, { verdicts })), thread: "main" as const };
  const prompts = valueOf(read.prompts);
  verdicts.adopt(prompts.marked);
  // The privacy findings, where they were always said (before the ledger's, spliced in below): the files' modes are known now, from their reads.
  const exposure = joined(tree.exposure(), prompts.exposure);
  const said = await asking;
  out.splice(privacyAt, 0, ...privacyFindings(ws, local, said, exposure));
  const privateHalf = said.ignored && said.tracked === "";
  // A ledger that cannot be read (a folder where the file belongs) is a finding, not the end of the report.
  let ledger: LedgerScan | undefined;
  try {
    ledger = ledgerScanOf(read.ledger, ledgerCache);
  } catch (err) {
    if (!isFailure(err)) throw err;
    out.splice(ledgerAt, 0, {
      level: "FAIL",
      category: "ledger",
      subject: relative(ws.position.worktree, ws.ledger.path),
      message: err.message,
      reproduce: "majordomus history --validate",
    });
  }
  const closed = valueOf(read.closed);
  out.push(...closed.findings);
  verdicts.adopt(closed.marked);
  mark(
    `doctor: ledger and closed records read (${read.thread === "worker" ? "beside the records" : "on this thread"})`,
  );
  const scan: Scan = ledger?.scan ?? {
    failures: { current: { count: 0, newest: [] }, recovered: { count: 0, newest: [] }, lastSuccessAt: new Map() },
    unclosedEnds: [],
    uncheckpointed: [],
  };
  out.push(...contexts);
  contextLogFindings(ws, scan.failures, out);
  out.push(...prompts.findings, ...files);
  ledgerLineFindings(ledger, out);
  if (privateHalf) {
    verdicts.save();
    ledger?.save();
  }
  lifecycleFindings(policy, scan, options.all === true, out);
  out.push(...handedOff, ...delivered, ...claimed);
  for (const rel of strayTemps(ws, { root: local, temps: exposure.temps }))
    out.push({
      level: "WARN",
      category: "files",
      subject: rel,
      message: "a temp file a killed writer left behind",
      reproduce: "majordomus doctor --fix (or majordomus recover)",
    });
  lockFindings(ws, exposure.locks, options.fix === true, out);
  out.push(...episodes);
  await proving;
  out.push(...proven);
  mark("doctor: wiring proven");
  return out;
}
