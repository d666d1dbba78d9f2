/**
 * Open questions, `<state>/open-questions.md`, one line each: `- [unresolved] <task> — <question> (<date>)` or `-
 * [resolved <date>] <task> — <question> — <answer>`. Any other list line is malformed and reported: a gate that
 * cannot read an entry could be bypassed by a typo.
 */
import { redactOnRead, type Clean } from "../lib/redact.ts";
import { join } from "node:path";
import { readAsset } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";
import { readIfExists, writeFileAtomic } from "../lib/fsx.ts";
import { readLayerFileIfExists, RECORD_MAX_BYTES, TooLarge } from "../lib/safe-read.ts";
import { withLock } from "../lib/lock.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export const SEPARATOR = " — ";

export type Question = {
  line: number;
  text: string;
  taskId: string;
  opened?: string;
  resolved?: string;
  answer?: string;
};
export type Malformed = { line: number; text: string; whole?: true };
export type Questions = { path: string; open: Question[]; resolved: Question[]; malformed: Malformed[] };

const UNRESOLVED = /^- \[unresolved\] (\S+) — (.+) \((\d{4}-\d{2}-\d{2})\)$/;
const RESOLVED = /^- \[resolved (\d{4}-\d{2}-\d{2})\] (\S+) — (.+?) — (.+)$/;

export function questionsPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), "open-questions.md");
}

export function parseQuestions(text: string, path: string): Questions {
  const out: Questions = { path, open: [], resolved: [], malformed: [] };
  let inComment = false;
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    let visible = line;
    if (inComment) {
      const end = line.indexOf("-->");
      if (end === -1) return;
      inComment = false;
      visible = line.slice(end + 3);
    }
    for (let start = visible.indexOf("<!--"); start !== -1; start = visible.indexOf("<!--")) {
      const end = visible.indexOf("-->", start + 4);
      if (end === -1) {
        inComment = true;
        visible = visible.slice(0, start);
        break;
      }
      visible = visible.slice(0, start) + visible.slice(end + 3);
    }
    const t = visible.trim();
    if (!/^[-*] /.test(t)) return;
    const open = UNRESOLVED.exec(t);
    if (open && !open[2]!.includes(SEPARATOR)) {
      out.open.push({ line: i + 1, taskId: open[1]!, text: redactOnRead(open[2]!), opened: open[3]! });
      return;
    }
    const done = RESOLVED.exec(t);
    if (done) {
      out.resolved.push({
        line: i + 1,
        resolved: done[1]!,
        taskId: done[2]!,
        text: redactOnRead(done[3]!),
        answer: redactOnRead(done[4]!),
      });
      return;
    }
    out.malformed.push({ line: i + 1, text: t });
  });
  return out;
}

/**
 * A file larger than any record (a force-added 42 MB one held every start for 8 s) is not read: it stands as one
 * malformed entry, so the briefing warns and `check` fails.
 */
export function readQuestions(layer: Layer): Questions {
  const path = questionsPath(layer);
  try {
    return parseQuestions(readLayerFileIfExists(path, { maxBytes: RECORD_MAX_BYTES }) ?? "", path);
  } catch (err) {
    if (!(err instanceof TooLarge)) throw err;
    return { path, open: [], resolved: [], malformed: [{ line: 0, text: err.message, whole: true }] };
  }
}

function checkSingleLine(what: string, text: string): string {
  const t = text.trim();
  if (t === "") throw new Failure("usage", `the ${what} is empty`, `give the ${what} as one line of text`);
  if (/[\r\n]/.test(t)) throw new Failure("usage", `the ${what} spans several lines`, `give the ${what} as one line`);
  if (t.includes(SEPARATOR))
    throw new Failure(
      "usage",
      `the ${what} contains " — ", the separator of the questions file`,
      "use another dash or a colon",
    );
  return t;
}

function today(at: Date): string {
  return at.toISOString().slice(0, 10);
}

const LOCK_WAIT_MS = 3_000;

function edit<T>(layer: Layer, change: (text: string, path: string) => { text: string; value: T }): T {
  const path = questionsPath(layer);
  const lock = `${path}.lock`;
  const done = withLock(lock, LOCK_WAIT_MS, () => {
    const before = readIfExists(path) ?? readAsset("share/skeleton/local/state/open-questions.md");
    const result = change(before, path);
    writeFileAtomic(path, result.text, 0o600);
    return result.value;
  });
  if (!done.acquired) throw new Failure("refused", `${lock} is held by another majordomus`, "retry in a moment");
  return done.value;
}

export function addQuestion(layer: Layer, question: Clean, taskId: string, at: Date): Question {
  const text = checkSingleLine("question", question);
  return edit(layer, (before) => {
    const line = `- [unresolved] ${taskId} — ${text} (${today(at)})`;
    const sep = before === "" || before.endsWith("\n") ? "" : "\n";
    const after = `${before}${sep}${line}\n`;
    return { text: after, value: { line: after.split("\n").length - 1, text, taskId, opened: today(at) } };
  });
}

export function select(questions: Questions, selector: string): Question {
  if (/^\d+$/.test(selector)) {
    const q = questions.open[Number(selector) - 1];
    if (!q)
      throw new Failure(
        "missing",
        `there is no open question number ${selector} (${questions.open.length} open)`,
        "run `majordomus question list`",
      );
    return q;
  }
  const matches = questions.open.filter((q) => q.text.toLowerCase().includes(selector.toLowerCase()));
  if (matches.length === 0)
    throw new Failure(
      "missing",
      `no open question contains ${JSON.stringify(selector)}`,
      "run `majordomus question list`",
    );
  if (matches.length > 1)
    throw new Failure(
      "usage",
      `${matches.length} open questions contain ${JSON.stringify(selector)}`,
      "give its number from `majordomus question list`, or more of its text",
    );
  return matches[0]!;
}

export function resolveQuestion(layer: Layer, selector: string, answer: Clean, at: Date): Question {
  const text = checkSingleLine("answer", answer);
  return edit(layer, (before, path) => {
    const q = select(parseQuestions(before, path), selector);
    const lines = before.split("\n");
    lines[q.line - 1] = `- [resolved ${today(at)}] ${q.taskId} — ${q.text} — ${text}`;
    return { text: lines.join("\n"), value: { ...q, resolved: today(at), answer: text } };
  });
}

export function describeMalformed(questions: Questions): string[] {
  return questions.malformed.map((m) =>
    m.whole ? `${m.text}; not read` : `${questions.path}:${m.line}: not a question line: ${m.text}`,
  );
}
