/**
 * What a client's transcript shows the agent did, one reader per client: each tool call as an edit, a read or a
 * command, with the person's turn, the calls and output tokens before it, and whether the client says it succeeded.
 */
import { isAbsolute, relative } from "node:path";

export type Action = {
  kind: "edit" | "read" | "run";
  target: string;
  ok: boolean;
  turn: number;
  calls: number;
  tokens: number;
};

type Tools = Record<string, { kind: Action["kind"]; key: string }>;

/** Rows past these bounds are not parsed (a 4 MB line nested two million deep took 4 s): what they held is unseen. */
const LINE_MAX = 1024 * 1024;
const DEPTH_MAX = 64;

/** What a reader could not parse: the verdict then cannot rest on what it saw. */
export type Unseen = { rows: number };

/** A row parsed, within the bounds; undefined (and counted) when it is not. */
export function jsonRow(line: string, unseen: Unseen): Record<string, unknown> | undefined {
  if (line.length > LINE_MAX) return void unseen.rows++;
  if (line.length > 4096) {
    let depth = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if ((c === 123 || c === 91) && ++depth > DEPTH_MAX) return void unseen.rows++;
      if (c === 125 || c === 93) depth--;
    }
  }
  try {
    const row = JSON.parse(line) as unknown;
    return row && typeof row === "object" ? (row as Record<string, unknown>) : undefined;
  } catch {
    return void unseen.rows++;
  }
}

const CLAUDE_TOOLS: Tools = {
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
export function claudeActions(text: string, root: (path: string) => string | undefined, unseen: Unseen): Action[] {
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
    if (tool) {
      const row = jsonRow(line, unseen) as Row | undefined;
      if (!row) continue;
      const content = row.message?.content;
      blocks = (Array.isArray(content) ? content : []) as Block[];
    }
    for (const b of blocks) {
      if (user && b?.type === "tool_result") failed.set(b.tool_use_id, b.is_error === true);
      const kind = !user && b?.type === "tool_use" && typeof b.name === "string" ? CLAUDE_TOOLS[b.name] : undefined;
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

type Json = Record<string, unknown>;

/** Codex's rollout: its `item_completed` events (UserMessage, FileChange, CommandExecution) and usage records. */
export function codexActions(text: string, root: (path: string) => string | undefined, unseen: Unseen): Action[] {
  const out: Action[] = [];
  let turn = 0;
  let tokens = 0;
  let calls = 0;
  for (const line of text.split("\n")) {
    const usage = line.includes('"type":"token_usage_record"');
    if (!usage && !line.includes('"type":"item_completed"')) continue;
    const payload = jsonRow(line, unseen)?.payload as Json | undefined;
    if (usage) {
      const n = (payload?.usage as Json | undefined)?.output_tokens;
      if (typeof n === "number") tokens += n;
      continue;
    }
    const item = payload?.item as Json | undefined;
    const at = { turn, calls, tokens };
    if (item?.type === "UserMessage") turn++;
    else if (item?.type === "FileChange") {
      calls++;
      const ok = item.status === "completed";
      for (const path of Object.keys((item.changes as Json | undefined) ?? {})) {
        const target = root(path);
        if (target !== undefined) out.push({ kind: "edit", target, ok, ...at });
      }
    } else if (item?.type === "CommandExecution") {
      calls++;
      const ok = item.status === "completed" && (item.exit_code ?? 0) === 0;
      const command = Array.isArray(item.command) ? String(item.command.at(-1) ?? "") : "";
      out.push({ kind: "run", target: command, ok, ...at });
      for (const p of Array.isArray(item.parsed_cmd) ? (item.parsed_cmd as Json[]) : []) {
        const target = p.type === "read" && typeof p.path === "string" ? root(p.path) : undefined;
        if (target !== undefined) out.push({ kind: "read", target, ok, ...at });
      }
    }
  }
  return out;
}

const GEMINI_TOOLS: Tools = {
  write_file: { kind: "edit", key: "file_path" },
  replace: { kind: "edit", key: "file_path" },
  read_file: { kind: "read", key: "file_path" },
  run_shell_command: { kind: "run", key: "command" },
};

/** Gemini's chat file: a message a line, written again as it grows (its last version counts). */
export function geminiActions(text: string, root: (path: string) => string | undefined, unseen: Unseen): Action[] {
  const messages = new Map<unknown, Json>();
  for (const line of text.split("\n")) {
    if (!line.startsWith('{"id":')) continue;
    const m = jsonRow(line, unseen);
    if (m) messages.set(m.id, m);
  }
  const out: Action[] = [];
  let turn = 0;
  let tokens = 0;
  let calls = 0;
  for (const m of messages.values()) {
    const content = Array.isArray(m.content) ? (m.content as Json[]) : [];
    if (m.type === "user") {
      const said = content.some((c) => typeof c.text === "string" && !c.text.startsWith("<session_context>"));
      if (said && !content.some((c) => c.functionResponse)) turn++;
      continue;
    }
    if (m.type !== "gemini") continue;
    for (const call of Array.isArray(m.toolCalls) ? (m.toolCalls as Json[]) : []) {
      const tool = GEMINI_TOOLS[String(call.name)];
      const value = (call.args as Json | undefined)?.[tool?.key ?? ""];
      const target = tool && typeof value === "string" ? (tool.kind === "run" ? value : root(value)) : undefined;
      if (tool && target !== undefined)
        out.push({ kind: tool.kind, target, ok: call.status === "success", turn, calls, tokens });
      calls++;
    }
    const n = (m.tokens as Json | undefined)?.output;
    if (typeof n === "number") tokens += n;
  }
  return out;
}

const OPENCODE_TOOLS: Tools = {
  write: { kind: "edit", key: "filePath" },
  edit: { kind: "edit", key: "filePath" },
  read: { kind: "read", key: "filePath" },
  bash: { kind: "run", key: "command" },
};

/** opencode's store as transcript/opencode.ts lines it: a turn is a person's message; a tool part holds its call. */
export function opencodeActions(text: string, root: (path: string) => string | undefined, unseen: Unseen): Action[] {
  const out: Action[] = [];
  let turn = 0;
  let tokens = 0;
  let calls = 0;
  let message: unknown;
  for (const line of text.split("\n")) {
    const row = line === "" ? undefined : jsonRow(line, unseen);
    const part = row?.part as Json | undefined;
    if (!row || !part) continue;
    if (row.role === "user" && part.type === "text" && part.synthetic !== true && row.id !== message) {
      message = row.id;
      turn++;
    }
    if (part.type === "step-finish") tokens += Number((part.tokens as Json | undefined)?.output ?? 0) || 0;
    if (part.type !== "tool") continue;
    const tool = OPENCODE_TOOLS[String(part.tool)];
    const state = (part.state ?? {}) as Json;
    const value = (state.input as Json | undefined)?.[tool?.key ?? ""];
    const target = tool && typeof value === "string" ? (tool.kind === "run" ? value : root(value)) : undefined;
    if (tool && target !== undefined)
      out.push({ kind: tool.kind, target, ok: state.status === "completed", turn, calls, tokens });
    calls++;
  }
  return out;
}

export const ACTION_READERS: Record<
  string,
  (text: string, root: (path: string) => string | undefined, unseen: Unseen) => Action[]
> = {
  "claude-code": claudeActions,
  codex: codexActions,
  gemini: geminiActions,
  opencode: opencodeActions,
};
