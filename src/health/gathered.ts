/** What doctor's checks share, each started when the first check asks and then the same answer for all. */
import { join, relative } from "node:path";
import { lstatSync } from "node:fs";
import type { Workspace } from "../workspace/workspace.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { sectionPath } from "../layer/manifest.ts";
import { git } from "../repo/git.ts";
import { createHash } from "../lib/runtime.ts";
import { isFailure, type Failure } from "../lib/failure.ts";
import { mark } from "../lib/trace.ts";
import { tickets } from "../hooks/handoff.ts";
import { FRONT_MATTER_KEYS, OPTIONAL_FRONT_MATTER_KEYS, RECORD_KINDS } from "../records/kinds.ts";
import { RECORD_KEYS, TRANSCRIPT_KEYS } from "../session/schema.ts";
import { CONTEXT_KEYS } from "../lifecycle/open.ts";
import { Verdicts } from "./verdicts.ts";
import { Tree, type Exposure } from "./tree.ts";
import { answer, ledgerScanOf, readBeside, valueOf, type BesideAnswer, type BesideRequest } from "./beside.ts";
import type { LedgerScan, Scan } from "./ledger-scan.ts";
import type { Checked } from "./beside.ts";

const VERDICTS_FILE = "doctor-verdicts.tsv";
const LEDGER_SCAN_FILE = "doctor-ledger.json";

export type Said = { probe: string; ignored: boolean; tracked: string };
type Read = BesideAnswer & { thread: "worker" | "main" };

export type Gathered = {
  ws: Workspace;
  all: boolean;
  local: string;
  verdicts: Verdicts;
  tree: Tree;
  policy: () => Promise<LoadedPolicy | Error>;
  said: () => Promise<Said>;
  closed: () => Promise<Checked>;
  prompts: { dir: string; tree: Tree };
  ledger: () => Promise<LedgerScan | Failure>;
  scan: () => Promise<Scan>;
  exposure: () => Promise<Exposure>;
  readsDone: (reads: Promise<unknown>) => void;
};

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

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

function cacheFile(ws: Workspace, name: string): string | undefined {
  return ws.layer.manifest.sections.cache === undefined ? undefined : join(sectionPath(ws.layer, "cache"), name);
}

/**
 * Whether an earlier run's verdicts are kept, so this run reads only what changed. Such a run goes without the JIT
 * (98 MiB instead of 129); a first run without its last tier (0.90x the time).
 */
export function remembers(ws: Workspace): boolean {
  const verdicts = cacheFile(ws, VERDICTS_FILE);
  return verdicts !== undefined && lstatSync(verdicts, { throwIfNoEntry: false })?.isFile() === true;
}

async function gitPrivacy(ws: Workspace, local: string): Promise<Said> {
  const root = ws.position.worktree;
  const probe = relative(root, join(local, "state", "ledger.jsonl"));
  const [ignored, tracked] = await Promise.all([
    git(root, ["check-ignore", "-q", "--no-index", probe]),
    git(root, ["ls-files", "--", relative(root, local)]),
  ]);
  return { probe, ignored: ignored.status === 0, tracked: tracked.stdout.trim() };
}

function joined(a: Exposure, b: Exposure): Exposure {
  const byPath = (x: { path: string }, y: { path: string }) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  return {
    openDirs: [...a.openDirs, ...b.openDirs].sort(byPath),
    readableFiles: [...a.readableFiles, ...b.readableFiles].sort(byPath),
    links: [...a.links, ...b.links].sort(),
    locks: [...a.locks, ...b.locks].sort(),
    temps: [...a.temps, ...b.temps].sort(),
  };
}

const NO_SCAN: Scan = {
  failures: { current: { count: 0, newest: [] }, recovered: { count: 0, newest: [] }, lastSuccessAt: new Map() },
  unclosedEnds: [],
  uncheckpointed: [],
};

/**
 * The ledger and the closed records are read on a second core while this one reads the local half; a later run stays
 * on this thread.
 */
function besideRequest(
  ws: Workspace,
  ledgerCache: string | undefined,
  verdictsFile: string | undefined,
): BesideRequest {
  const running = new Set(tickets(ws.layer).flatMap((t) => (t.lost ? [] : [t.event])));
  return {
    ledger: { path: ws.ledger.path, ...(ledgerCache ? { cacheFile: ledgerCache } : {}), running: [...running] },
    closed: { dir: sectionPath(ws.layer, "sessions") },
    worktree: ws.position.worktree,
    verdicts: { ...(verdictsFile ? { file: verdictsFile } : {}), vocabulary: recordVocabulary() },
  };
}

/** A failure to read the ledger is a finding (a folder where the file belongs), not the end of the report. */
const settledLedger = (read: () => Promise<Read>, cache: string | undefined) =>
  once(async () => {
    try {
      return ledgerScanOf((await read()).ledger, cache);
    } catch (err) {
      if (isFailure(err)) return err;
      throw err;
    }
  });

export function gather(ws: Workspace, all: boolean): Gathered {
  const ledgerCache = cacheFile(ws, LEDGER_SCAN_FILE);
  const verdictsFile = cacheFile(ws, VERDICTS_FILE);
  const request = besideRequest(ws, ledgerCache, verdictsFile);
  const mine = Promise.withResolvers<{ verdicts: Verdicts }>();
  const beside = remembers(ws) ? undefined : readBeside(request, () => mine.promise);
  beside?.catch(() => undefined);
  const local = join(ws.layer.dir, ws.layer.manifest.local.path);
  const verdicts = new Verdicts(verdictsFile, request.verdicts.vocabulary);
  const promptsDir = sectionPath(ws.layer, "prompts");
  const tree = new Tree(local, [promptsDir], verdicts.remembering);
  const promptsTree = new Tree(promptsDir, [], verdicts.remembering);
  mark("doctor: local half walked");
  mine.resolve({ verdicts });
  const read = once(async (): Promise<Read> => {
    const r = beside ? await beside : { ...(await answer(request, { verdicts })), thread: "main" as const };
    mark(`doctor: ledger and closed records read (${r.thread === "worker" ? "beside the records" : "on this thread"})`);
    return r;
  });
  const adopted = <T extends Checked>(part: (r: Read) => T) =>
    once(async () => {
      const value = part(await read());
      verdicts.adopt(value.marked);
      return value;
    });
  const ledger = settledLedger(read, ledgerCache);
  const reads = Promise.withResolvers<unknown>();
  const readsDone = (p: Promise<unknown>) => reads.resolve(p.catch(() => undefined));
  return {
    ws,
    all,
    local,
    verdicts,
    tree,
    policy: once(() => ws.policy({ strict: true }).catch((err: unknown) => err as Error)),
    said: once(() => gitPrivacy(ws, local)),
    closed: adopted((r) => valueOf(r.closed)),
    prompts: { dir: promptsDir, tree: promptsTree },
    ledger,
    scan: once(async () => {
      const l = await ledger();
      return isFailure(l) ? NO_SCAN : l.scan;
    }),
    exposure: once(async () => {
      await reads.promise;
      return joined(tree.exposure(), promptsTree.exposure());
    }),
    readsDone,
  };
}
