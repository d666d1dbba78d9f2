/**
 * Whether a session acted on the Next Action it was handed, measured from its client's transcript: which of the paths
 * and commands the Next Action names it edited or ran, how early, and how much of what the handover cites it read
 * again first. Only numbers and the names the Next Action already holds are kept; no transcript text.
 */
import { statSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { claimsIn } from "../records/claims.ts";
import { readBounded } from "./delivery.ts";

export const UPTAKE_STATES = ["acted", "partly", "ignored", "not_provable"] as const;
export type UptakeState = (typeof UPTAKE_STATES)[number];

export type Uptake = {
  state: UptakeState;
  handed: string;
  named: string[];
  acted_on: string[];
  /** The person's turn (1 = the first) in which the first named thing was edited or run. */
  turn?: number;
  tool_calls_before?: number;
  tokens_before?: number;
  /** Reads of files the handover cites, before the session's first edit. */
  rereads?: number;
  cause?: string;
};

/** One tool call the agent made: an edit, a read or a command, and whether the client says it succeeded. */
export type Action = {
  kind: "edit" | "read" | "run";
  target: string;
  ok: boolean;
  turn: number;
  calls: number;
  tokens: number;
};

/** A transcript read this far from its start; past it, what was not seen is not counted. */
const READ_BYTES = 32 * 1024 * 1024;

const TOOL_KINDS: Record<string, { kind: Action["kind"]; key: string }> = {
  Edit: { kind: "edit", key: "file_path" },
  MultiEdit: { kind: "edit", key: "file_path" },
  Write: { kind: "edit", key: "file_path" },
  NotebookEdit: { kind: "edit", key: "notebook_path" },
  Read: { kind: "read", key: "file_path" },
  Bash: { kind: "run", key: "command" },
};

type Row = { type?: unknown; isMeta?: unknown; message?: { id?: unknown; content?: unknown; usage?: unknown } };
type Block = {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  is_error?: unknown;
};

/** The text after `key` up to the first of `ends`, found natively (the hooks run without the regular-expression JIT). */
function after(line: string, key: string, ends: string): string | undefined {
  const at = line.indexOf(key);
  if (at === -1) return undefined;
  let end = at + key.length;
  while (end < line.length && !ends.includes(line[end]!)) end++;
  return line.slice(at + key.length, end);
}

/**
 * Claude Code's JSONL: a turn is a person's message; tool calls are assistant `tool_use` blocks, answered by
 * `tool_result`. Only lines holding a call or its answer are parsed; the rest are counted from their text.
 */
export function claudeActions(text: string, root: (path: string) => string | undefined): Action[] {
  const calls: Array<Omit<Action, "ok"> & { id: unknown }> = [];
  const failed = new Map<unknown, boolean>();
  const counted = new Set<string>();
  let turn = 0;
  let tokens = 0;
  for (const line of text.split("\n")) {
    const user = line.includes('"type":"user"');
    if (!user && !line.includes('"type":"assistant"')) continue;
    const tool = line.includes(user ? '"tool_result"' : '"tool_use"');
    if (user && !tool) {
      if (!line.includes('"isMeta":true') && !line.includes('"isCompactSummary":true')) turn++;
      continue;
    }
    let blocks: Block[] = [];
    if (tool)
      try {
        const content = (JSON.parse(line) as Row).message?.content;
        blocks = (Array.isArray(content) ? content : []) as Block[];
      } catch {
        continue;
      }
    for (const b of blocks) {
      if (user && b?.type === "tool_result") failed.set(b.tool_use_id, b.is_error === true);
      const kind = !user && b?.type === "tool_use" && typeof b.name === "string" ? TOOL_KINDS[b.name] : undefined;
      const value = (b?.input as Record<string, unknown> | undefined)?.[kind?.key ?? ""];
      if (kind && typeof value === "string") {
        const target = kind.kind === "run" ? value : root(value);
        if (target !== undefined) calls.push({ id: b.id, kind: kind.kind, target, turn, calls: calls.length, tokens });
      }
    }
    const out = user ? undefined : Number(after(line, '"output_tokens":', ",}"));
    const id = after(line, '"id":"msg_', '"') ?? line;
    if (out !== undefined && Number.isInteger(out) && !counted.has(id)) {
      counted.add(id);
      tokens += out;
    }
  }
  return calls.map(({ id, ...c }) => ({ ...c, ok: failed.get(id) === false }));
}

export const ACTION_READERS: Record<string, (text: string, root: (path: string) => string | undefined) => Action[]> = {
  "claude-code": claudeActions,
};

/** A path a tool named, relative to the checkout; undefined outside it. */
export function inCheckout(roots: readonly string[]): (path: string) => string | undefined {
  return (path) => {
    if (!isAbsolute(path)) return path.replace(/^\.\//, "");
    for (const r of roots) {
      const rel = relative(r, path);
      if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel;
    }
    return undefined;
  };
}

export function actionsOf(
  provider: string,
  transcript: string | undefined,
  roots: readonly string[],
): { actions: Action[]; cut: boolean } | { cause: string } {
  const reader = ACTION_READERS[provider];
  if (!reader) return { cause: `majordomus reads no transcript of ${provider} for uptake` };
  if (!transcript) return { cause: "the client named no transcript for this session" };
  const text = readBounded(transcript, READ_BYTES, 0);
  if (text === undefined) return { cause: "the client's transcript could not be read as a plain file" };
  let cut = false;
  try {
    cut = statSync(transcript).size > READ_BYTES;
  } catch {}
  return { actions: reader(text, inCheckout(roots)), cut };
}

export const COMMAND = /^[A-Za-z][\w.+-]*(?: +[^\s`]+)+$/;

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
  return [...out];
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A command run as whole words: the named command between a start or separator and an end or separator. */
export const wholeWords = (command: string) => new RegExp(`(?:^|[\\s;&|(])${escaped(command)}(?:$|[\\s;&|)])`);

function hits(target: string, a: Action): boolean {
  if (!a.ok) return false;
  if (a.kind === "run") return wholeWords(target).test(a.target);
  return a.kind === "edit" && (a.target === target || a.target.startsWith(`${target.replace(/\/$/, "")}/`));
}

/** Pure: the verdict from the named targets, the paths the handover cites, and the session's actions. */
export function uptakeOf(
  handed: string,
  named: readonly string[],
  cited: readonly string[],
  read: { actions: Action[]; cut: boolean } | { cause: string },
): Uptake {
  const base = { handed, named: [...named], acted_on: [] as string[] };
  if (named.length === 0)
    return { ...base, state: "not_provable", cause: "the Next Action names no path or command to look for" };
  if ("cause" in read) return { ...base, state: "not_provable", cause: read.cause };
  const acted = named.filter((t) => read.actions.some((a) => hits(t, a)));
  const first = read.actions.find((a) => named.some((t) => hits(t, a)));
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
      cause: `only the transcript's first ${READ_BYTES / 1024 / 1024} MB were read`,
    };
  return { ...base, acted_on: acted, state, ...figures, rereads };
}
