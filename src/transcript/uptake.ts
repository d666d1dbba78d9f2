/**
 * Whether a session acted on the Next Action it was handed, measured from its client's transcript: which of the paths
 * and commands the Next Action names it edited or ran, how early, and how much of what the handover cites it read
 * again first. Only numbers and the names the Next Action already holds are kept; no transcript text.
 */
import { statSync } from "node:fs";
import { claimsIn, CLAIMS_KEPT } from "../records/claims.ts";
import { ACTION_READERS, inCheckout, type Action } from "./actions.ts";
import { readBounded } from "./delivery.ts";

export type { Action } from "./actions.ts";

/** A transcript read this far from its start; past it, what was not seen is not counted. */
const READ_BYTES = 32 * 1024 * 1024;

export const UPTAKE_STATES = ["acted", "partly", "ignored", "not_provable"] as const;
export type UptakeState = (typeof UPTAKE_STATES)[number];

/** The fields are said in docs/uptake.md: `turn` counts the person's turns from 1. */
export type Uptake = {
  state: UptakeState;
  handed: string;
  named: string[];
  acted_on: string[];
  turn?: number;
  tool_calls_before?: number;
  tokens_before?: number;
  rereads?: number;
  cause?: string;
};

export function actionsOf(
  provider: string,
  transcript: string | undefined,
  roots: readonly string[],
): { actions: Action[]; cut: boolean } | { cause: string } {
  const reader = ACTION_READERS[provider];
  if (!reader) return { cause: `majordomus reads no transcript of ${provider} for uptake` };
  if (!transcript) return { cause: "the client named no transcript for this session" };
  const text = readBounded(provider, transcript, READ_BYTES, 0);
  if (text === undefined)
    return { cause: "the client's transcript could not be read as a plain file of its own transcript folder" };
  let cut = false;
  try {
    cut = statSync(transcript).size > READ_BYTES;
  } catch {}
  const unseen = { rows: 0 };
  const actions = reader(text, inCheckout(roots), unseen);
  return { actions, cut: cut || unseen.rows > 0 };
}

/** A client whose sessions live in a store, not a file: read by session (opencode's SQLite). */
export async function sessionActions(
  provider: string,
  transcript: string | undefined,
  session: string,
  roots: readonly string[],
): Promise<{ actions: Action[]; cut: boolean } | { cause: string }> {
  if (provider !== "opencode") return actionsOf(provider, transcript, roots);
  if (!transcript) return { cause: "the client named no store for this session" };
  const read = await (await import("./opencode.ts")).opencodeLines(transcript, session);
  if (!read) return { cause: "opencode's store could not be read as a file of its own data folder" };
  const unseen = { rows: 0 };
  const actions = ACTION_READERS.opencode!(read.text, inCheckout(roots), unseen);
  return { actions, cut: read.cut || unseen.rows > 0 };
}

export const COMMAND = /^[A-Za-z][\w.+-]*(?: +[^\s`]+)+$/;

/** What a Next Action names, at most as many as a record keeps claims (CLAIMS_KEPT), in the order it names them. */
export function namedIn(nextAction: string): string[] {
  const out = new Set<string>();
  const claims = claimsIn(nextAction);
  for (const c of claims)
    if (c.kind === "path" || c.kind === "symbol") out.add(c.path);
    else if (c.kind === "script") out.add(c.command);
  const paths = new Set(claims.flatMap((c) => (c.kind === "path" ? [c.path] : [])));
  for (const m of nextAction.matchAll(/`([^`\n]+)`/g)) {
    const code = m[1]!.trim();
    if (COMMAND.test(code) && !paths.has(code)) out.add(code);
  }
  return [...out].slice(0, CLAIMS_KEPT);
}

/** Commands a shell runs first on a line (a wrapper or an assignment before them is not the command). */
const WRAPPERS = new Set(["time", "env", "command", "exec", "nohup", "sudo", "npx", "bunx"]);

/**
 * The simple commands a shell line runs, each as its words: split at `;`, `&&`, `||`, `|`, `&`, newlines and
 * parentheses; a `#` word ends the line (a comment); quoted text stays one word. `echo npm test` runs echo.
 */
export function simpleCommands(line: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = "";
  let quote = "";
  const endWord = () => {
    if (word !== "") words.push(word);
    word = "";
  };
  const endCommand = () => {
    endWord();
    while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || WRAPPERS.has(words[0]!))) words.shift();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = "";
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && word === "") {
      const nl = line.indexOf("\n", i);
      if (nl === -1) break;
      i = nl - 1;
    } else if (";&|()\n`".includes(c) || (c === "$" && line[i + 1] === "(")) endCommand();
    else if (c === " " || c === "\t") endWord();
    else word += c;
  }
  endCommand();
  return out;
}

/** Whether a command line runs `command`: some simple command of it begins with its words. */
export function runs(line: string, command: string): boolean {
  const wanted = command.split(/\s+/).filter(Boolean);
  return simpleCommands(line).some((words) => wanted.every((w, i) => words[i] === w));
}

/** Acts on a target: a command run as it, or a succeeded edit of the path (or in it) git shows changed (`changed`). */
function matcher(target: string, changed: ReadonlySet<string> | undefined): (a: Action) => boolean {
  const folder = `${target.replace(/\/$/, "")}/`;
  const inGit = (path: string) => changed === undefined || changed.has(path);
  return (a) =>
    a.ok &&
    (a.kind === "run"
      ? runs(a.target, target)
      : a.kind === "edit" && (a.target === target || a.target.startsWith(folder)) && inGit(a.target));
}

/** Pure: the verdict from the named targets, the paths the handover cites, and the session's actions. */
export function uptakeOf(
  handed: string,
  named: readonly string[],
  cited: readonly string[],
  read: { actions: Action[]; cut: boolean } | { cause: string },
  changed?: ReadonlySet<string>,
): Uptake {
  const base = { handed, named: [...named], acted_on: [] as string[] };
  if (named.length === 0)
    return { ...base, state: "not_provable", cause: "the Next Action names no path or command to look for" };
  if ("cause" in read) return { ...base, state: "not_provable", cause: read.cause };
  // A session whose model never called a tool (it never answered, or only talked) did nothing to measure.
  if (read.actions.length === 0 && !read.cut)
    return { ...base, state: "not_provable", cause: "the session made no tool call: there is nothing to measure" };
  const matches = named.map((n) => matcher(n, changed));
  const acted = named.filter((_, i) => read.actions.some(matches[i]!));
  const first = read.actions.find((a) => matches.some((m) => m(a)));
  const firstEdit = read.actions.findIndex((a) => a.kind === "edit" && a.ok);
  const before = firstEdit === -1 ? read.actions : read.actions.slice(0, firstEdit);
  const rereads = before.filter((a) => a.kind === "read" && a.ok && cited.includes(a.target)).length;
  const figures = first
    ? { turn: Math.max(first.turn, 1), tool_calls_before: first.calls, tokens_before: first.tokens }
    : {};
  const state: UptakeState = acted.length === named.length ? "acted" : acted.length > 0 ? "partly" : "ignored";
  if (read.cut && state !== "acted")
    return {
      ...base,
      acted_on: acted,
      state: "not_provable",
      cause: `only part of the transcript could be read (its first ${READ_BYTES / 1024 / 1024} MB, rows within bounds)`,
    };
  return { ...base, acted_on: acted, state, ...figures, rereads };
}
