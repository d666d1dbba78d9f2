/** doctor's checks of the layer's files: manifest, policy, privacy, records, contexts, questions, ledger. */
import { lstatSync } from "node:fs";
import { join, relative } from "node:path";
import { loadLayer, sectionPath, SECTIONS, type SectionName } from "../layer/manifest.ts";
import { notAFile, readLayerEntry, readLayerFileIfExists, unreadable } from "../lib/safe-read.ts";
import { switchOn } from "../policy/index.ts";
import { describeMalformed, readQuestions } from "../questions/store.ts";
import { decisionsPath } from "../decisions/store.ts";
import { DERIVABLE_SECTIONS } from "../views/derived.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { isRecordName, storeOf } from "../records/store.ts";
import { readRecord } from "../records/record.ts";
import { pacedCollector, parseYaml } from "../lib/runtime.ts";
import { isFailure } from "../lib/failure.ts";
import { field } from "../lib/quote.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { TRANSCRIPT_KEYS } from "../session/schema.ts";
import { CONTEXT_KEYS } from "../lifecycle/open.ts";
import { FILES_PER_COLLECTION } from "./verdicts.ts";
import { pathOf, statKey } from "./tree.ts";
import { finding, type Finding } from "./findings.ts";
import type { Gathered } from "./gathered.ts";

export async function layerCheck(g: Gathered): Promise<Finding[]> {
  const fail = await loadLayer(g.ws.position.worktree).then(
    () => undefined,
    (err: unknown) => (err as Error).message,
  );
  return [finding(fail ? "FAIL" : "OK", "layer", "manifest", fail ?? "valid ai-repository/v1", "majordomus doctor")];
}

export async function policyCheck(g: Gathered): Promise<Finding[]> {
  const policy = await g.policy();
  if (policy instanceof Error) {
    const message = [policy.message, ...((policy as { details?: string[] }).details ?? [])].join("; ");
    return [finding("FAIL", "policy", "policy.yaml", message, "majordomus policy")];
  }
  const subject = relative(g.ws.position.worktree, policy.path);
  const out = [finding("OK", "policy", subject, "valid against its schema", "majordomus policy")];
  const required = policy.policy.handover?.required_sections ?? [];
  const underivable = required.filter((name) => !DERIVABLE_SECTIONS.includes(name));
  if (underivable.length > 0 && switchOn(policy.policy, "session.handover_on_end"))
    out.push(
      finding(
        "WARN",
        "policy",
        "handover.required_sections",
        `names ${underivable.join(", ")}, which no derivation writes: a session end closes its episode without ` +
          "a continuation record (an agent's own handover must fill them, and is not affected)",
        "majordomus handover --derive",
      ),
    );
  return out;
}

export function sectionsCheck(g: Gathered): Finding[] {
  const missing = (Object.keys(SECTIONS) as SectionName[]).filter((n) => g.ws.layer.manifest.sections[n] === undefined);
  const said = "not declared in the manifest; commands that need it exit 12";
  return missing.map((name) => finding("WARN", "layer", `sections.${name}`, said, "majordomus init --extend"));
}

const TRACKED_LOCAL =
  "a checkout can replace them, so nothing in them is believed (its task, ledger, records, consent or token). " +
  "Untrack them, keeping the files: git rm -r --cached";

/** git's word on the local half, and the modes and links the walks found (files' modes as their reads saw them). */
export async function privacyCheck(g: Gathered): Promise<Finding[]> {
  const root = g.ws.position.worktree;
  const at = (p: string) => relative(root, p);
  const [said, exposure] = await Promise.all([g.said(), g.exposure()]);
  const local = at(g.local);
  const check = `git check-ignore -v ${said.probe}`;
  const out = [
    said.ignored
      ? finding("OK", "privacy", local, "ignored by git", check)
      : finding("FAIL", "privacy", local, "not ignored by git: its files could be committed", check),
  ];
  if (said.tracked !== "") {
    const files = said.tracked.split("\n");
    const named = files.slice(0, 3).map((f) => field(f));
    const more = files.length > named.length ? ` and ${files.length - named.length} more` : "";
    const message = `tracked by git: ${named.join(", ")}${more}; ${TRACKED_LOCAL} ${local}, then commit`;
    out.push(finding("FAIL", "privacy", local, message, `git ls-files ${local}`));
  }
  const mode = (kind: string, p: { path: string; mode: number }, want: string, ls: string) =>
    finding(
      "FAIL",
      "privacy",
      at(p.path),
      `${kind} mode ${p.mode.toString(8)}; private ${kind}s are ${want}`,
      `${ls} ${at(p.path)}`,
    );
  for (const d of exposure.openDirs) out.push(mode("folder", d, "0700", "ls -ld"));
  for (const f of exposure.readableFiles.slice(0, 20)) out.push(mode("file", f, "0600", "ls -l"));
  const link =
    "a symbolic link inside the local half; majordomus never follows one, so what it points at is not checked";
  for (const l of exposure.links.slice(0, 20)) out.push(finding("FAIL", "privacy", at(l), link, `ls -l ${at(l)}`));
  if (exposure.openDirs.length === 0 && exposure.readableFiles.length === 0)
    out.push(finding("OK", "privacy", local, "folders 0700, files 0600", `ls -lR ${local}`));
  return out;
}

/** The records of every kind (handovers, checkpoints): files a first run reads by the ten thousand. */
export async function recordsCheck(g: Gathered): Promise<Finding[]> {
  const { tree, verdicts } = g;
  const collect = pacedCollector(FILES_PER_COLLECTION);
  const out: Finding[] = [];
  for (const kind of Object.values(RECORD_KINDS)) {
    const store = storeOf(g.ws.layer, kind);
    let count = 0;
    let bad = 0;
    for (const entry of tree.entries(store.dir, false)) {
      if (!isRecordName(entry.name)) continue;
      count++;
      const path = pathOf(entry);
      if (verdicts.remembering && verdicts.good(path, tree.keyAt(entry))) continue;
      collect();
      let key = "";
      const parsed = await readRecord(kind, path, entry.name, (stats) => {
        tree.sawAt(entry, stats);
        key = statKey(stats);
      });
      if (parsed.ok) verdicts.mark(path, key);
      else {
        bad++;
        const rel = relative(g.ws.position.worktree, path);
        out.push(finding("FAIL", "records", rel, parsed.reason, `majordomus ${kind.name} --list`));
      }
    }
    const all = `${count} ${kind.noun} record(s), all readable with only declared keys`;
    if (bad === 0) out.push(finding("OK", "records", kind.section, all, `majordomus ${kind.name} --list`));
  }
  return out;
}

const CONVERSATION = new RegExp(`^(${TRANSCRIPT_KEYS.join("|")})[: ]`, "i");

function contextProblem(meta: Record<string, unknown> | undefined, body: string): string | undefined {
  if (!meta) return "no readable front matter";
  if (meta.schema !== "session-context/v1") return `schema ${JSON.stringify(meta.schema)}`;
  const undeclared = Object.keys(meta).find((k) => !(CONTEXT_KEYS as readonly string[]).includes(k));
  if (undeclared) return `undeclared key ${undeclared}`;
  return body.split("\n").some((l) => CONVERSATION.test(l)) ? "carries a conversation line" : undefined;
}

export async function contextsCheck(g: Gathered): Promise<Finding[]> {
  const root = g.ws.position.worktree;
  const out: Finding[] = [];
  const entries = g.tree.entries(sectionPath(g.ws.layer, "session_contexts"));
  for (const entry of entries.filter((e) => e.name.endsWith(".md") && e.name !== "README.md")) {
    const f = pathOf(entry);
    const read = readLayerEntry(f);
    g.tree.sawAt(entry, read.stats);
    const split = splitFrontMatter(read.text);
    const meta = split
      ? ((await parseYaml(split.frontMatter).catch(() => undefined)) as Record<string, unknown> | undefined)
      : undefined;
    const problem = contextProblem(meta, split?.body ?? "");
    if (problem) out.push(finding("FAIL", "contexts", relative(root, f), problem, `head -20 ${relative(root, f)}`));
  }
  return out;
}

/** The hook failures the session contexts' log holds; a line is history once a later event of its kind succeeded. */
export async function contextLogCheck(g: Gathered): Promise<Finding[]> {
  const log = join(sectionPath(g.ws.layer, "session_contexts"), ".session-context.log");
  const rel = relative(g.ws.position.worktree, log);
  let text: string;
  try {
    text = readLayerFileIfExists(log) ?? "";
  } catch (err) {
    return [finding("FAIL", "contexts", rel, unreadable(err, log), `ls -l ${rel}`)];
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const { failures } = await g.scan();
  const current = lines.filter((l) => {
    const [, ts, provider, event] = /^(\S+) (\S+) (start|compact|end|prompt)\b/.exec(l) ?? [];
    const success = ts ? failures.lastSuccessAt.get(`${provider} ${event}`) : undefined;
    return !(success !== undefined && Date.parse(success) >= Date.parse(ts!));
  });
  if (current.length > 0) {
    const message = `${current.length} logged failure(s) not yet followed by a success; last: ${current.at(-1)}`;
    return [finding("FAIL", "contexts", rel, message, `cat ${rel}  (delete it once read)`)];
  }
  const history = `${lines.length} logged failure(s), all followed by a successful event of their kind`;
  return lines.length > 0 ? [finding("INFO", "contexts", rel, history, `cat ${rel}`)] : [];
}

export function questionsCheck(g: Gathered): Finding[] {
  const say = (m: string) => finding("FAIL", "questions", "open-questions.md", m, "majordomus question list");
  try {
    return describeMalformed(readQuestions(g.ws.layer)).map(say);
  } catch (err) {
    if (!isFailure(err)) throw err;
    return [say(err.message)];
  }
}

/** decisions.md is read leniently (a missing one is no decisions); one that is not a file is said. */
export function decisionsCheck(g: Gathered): Finding[] {
  const decisions = decisionsPath(g.ws.layer);
  const kept = lstatSync(decisions, { throwIfNoEntry: false });
  if (!kept || kept.isFile()) return [];
  const rel = relative(g.ws.position.worktree, decisions);
  return [finding("FAIL", "decisions", rel, notAFile(decisions).message, `ls -ld ${rel}`)];
}

/** A ledger that cannot be read (a folder where the file belongs) is a finding; so is each line problem. */
export async function ledgerCheck(g: Gathered): Promise<Finding[]> {
  const ledger = await g.ledger();
  const validate = "majordomus history --validate";
  if (isFailure(ledger))
    return [finding("FAIL", "ledger", relative(g.ws.position.worktree, g.ws.ledger.path), ledger.message, validate)];
  const out = ledger.findings.map((f) => finding("FAIL", "ledger", `line ${f.line}`, f.problem, validate));
  const more = ledger.problems - ledger.findings.length;
  if (more > 0) out.push(finding("FAIL", "ledger", "lines", `${more} more line problem(s)`, validate));
  return out;
}
