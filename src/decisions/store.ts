/** Decisions: `<state>/decisions.md`, appended one entry at a time with its task, commit and date. */
import { redactOnRead, type Clean } from "../lib/redact.ts";
import { appendText, readIfExists } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { join } from "node:path";
import { Failure } from "../lib/failure.ts";
import { withLock } from "../lib/lock.ts";
import { readAsset } from "../assets/index.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";

export type Decision = { date: string; title: string; task: string; head: string; why: string };

export function decisionsPath(layer: Layer): string {
  return join(sectionPath(layer, "state"), "decisions.md");
}

function oneLine(what: string, text: string): string {
  const t = text.trim();
  if (t === "") throw new Failure("usage", `the decision ${what} is empty`, "give it as one line of text");
  if (/[\r\n]/.test(t)) throw new Failure("usage", `the decision ${what} spans several lines`, "give it as one line");
  return t;
}

export function render(d: Decision): string {
  return `\n## ${d.date} — ${d.title}\n- Task: ${d.task}\n- Head: ${d.head}\n- Why: ${d.why}\n`;
}

export function appendDecision(
  layer: Layer,
  title: Clean,
  why: Clean | undefined,
  task: string,
  head: string,
  at: Date,
): Decision {
  const decision: Decision = {
    date: at.toISOString().slice(0, 10),
    title: oneLine("title", title),
    task,
    head,
    why: why === undefined ? "not recorded" : oneLine("reason", why),
  };
  const path = decisionsPath(layer);
  const done = withLock(`${path}.lock`, 3_000, () => {
    let before = readIfExists(path);
    if (before === undefined) {
      before = readAsset("share/skeleton/local/state/decisions.md");
      appendText(path, before, 0o600);
    }
    appendText(path, `${before.endsWith("\n") ? "" : "\n"}${render(decision).slice(before.endsWith("\n\n") ? 1 : 0)}`);
  });
  if (!done.acquired) throw new Failure("refused", `${path}.lock is held by another majordomus`, "retry in a moment");
  return decision;
}

/** Every entry, oldest first (the template comment is not read). */
export function readDecisions(layer: Layer): Decision[] {
  let text = "";
  try {
    text = readLayerFile(decisionsPath(layer));
  } catch {
    return [];
  }
  const out: Decision[] = [];
  let current: Decision | undefined;
  for (const line of text.replace(/<!--[\s\S]*?-->/g, "").split("\n")) {
    const heading = /^## (\d{4}-\d{2}-\d{2}) — (.+)$/.exec(line);
    if (heading) {
      current = { date: heading[1]!, title: redactOnRead(heading[2]!), task: "none", head: "NONE", why: "" };
      out.push(current);
      continue;
    }
    const field = /^- (Task|Head|Why): (.*)$/.exec(line);
    if (current && field)
      current[field[1]!.toLowerCase() as "task" | "head" | "why"] =
        field[1] === "Why" ? redactOnRead(field[2]!) : field[2]!;
  }
  return out;
}
