/**
 * Whether the briefing reached the model, as the client's transcript records the start hook's answer. For Claude
 * Code: `inline` (the briefing itself), `collapsed` (a `<persisted-output>` preview stood in: an answer over 10,000
 * characters), `missing` (failed, cancelled, none), `not_provable` (a transcript we cannot read). Read through the
 * safe open, bounded at both ends; only the verdict is stored.
 */
import { closeSync, existsSync, fstatSync, readSync } from "node:fs";
import { basename } from "node:path";
import { openUnder } from "../lib/safe-read.ts";
import { transcriptRoot } from "./roots.ts";

export const DELIVERY_STATES = ["inline", "collapsed", "missing", "not_provable"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
export type DeliveryVerdict = { state: DeliveryState; cause: string };

export const undelivered = (v: { state: string }) => v.state === "collapsed" || v.state === "missing";

const HEAD_BYTES = 4 * 1024 * 1024;
const TAIL_BYTES = 4 * 1024 * 1024;

/**
 * A client's transcript, only from its own transcript folder and never through a link on the way: whole up to `head +
 * tail` bytes, else its first `head` and last `tail`. Undefined when it cannot be read so.
 */
export function readBounded(provider: string, path: string, head = HEAD_BYTES, tail = TAIL_BYTES): string | undefined {
  const root = transcriptRoot(provider);
  let fd: number | undefined;
  try {
    if (root === undefined) return undefined;
    fd = openUnder(path, root)?.fd;
    if (fd === undefined) return undefined;
    const size = fstatSync(fd).size;
    const take = (from: number, length: number) => {
      const buffer = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const n = readSync(fd!, buffer, read, length - read, from + read);
        if (n === 0) break;
        read += n;
      }
      return buffer.toString("utf8", 0, read);
    };
    if (size <= head + tail) return take(0, size);
    return tail === 0 ? take(0, head) : `${take(0, head)}\n${take(size - tail, tail)}`;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

type Attachment = {
  type?: unknown;
  hookEvent?: unknown;
  command?: unknown;
  content?: unknown;
  stderr?: unknown;
  exitCode?: unknown;
};

function newestStartAnswer(text: string, shim: string): Attachment | undefined {
  // Each mention of the shim, found natively from the end, and the line around it parsed.
  for (let at = text.lastIndexOf(shim); at !== -1; at = text.lastIndexOf(shim, at - 1)) {
    const start = text.lastIndexOf("\n", at) + 1;
    const end = text.indexOf("\n", at);
    const line = text.slice(start, end === -1 ? text.length : end);
    if (line.includes('"SessionStart"')) {
      try {
        const a = (JSON.parse(line) as { attachment?: Attachment }).attachment;
        if (a && a.hookEvent === "SessionStart" && typeof a.command === "string" && a.command.includes(shim)) return a;
      } catch {}
    }
    if (start === 0) break;
    at = start;
  }
  return undefined;
}

const lastLine = (v: unknown) =>
  typeof v === "string"
    ? v
        .trim()
        .split("\n")
        .at(-1)!
        .replace(/^Failed with non-blocking status code: /, "")
        .slice(0, 200)
    : "";

export function claudeVerdict(text: string, shim: string): DeliveryVerdict {
  const a = newestStartAnswer(text, shim);
  if (!a)
    return {
      state: "missing",
      cause: "the client's transcript holds no answer of the start hook (it did not run, or printed nothing)",
    };
  if (a.type === "hook_success" && typeof a.content === "string") {
    if (a.content.startsWith("<persisted-output>")) {
      const size = /Output too large \(([^)]+)\)/.exec(a.content)?.[1];
      return {
        state: "collapsed",
        cause:
          `Claude Code stood a 2 KB preview and a file path in for the ` +
          `briefing${size ? ` (${size})` : ""}: it was over the client's 10,000 characters`,
      };
    }
    return {
      state: "inline",
      cause: `the briefing reached the model whole (${a.content.length.toLocaleString("en-US")} characters)`,
    };
  }
  const exit = typeof a.exitCode === "number" ? ` (exit ${a.exitCode})` : "";
  return {
    state: "missing",
    cause: `the start hook did not answer${exit}${lastLine(a.stderr) ? `: ${lastLine(a.stderr)}` : ` (${String(a.type)})`}`,
  };
}

/** The briefing's first line: how a client's record that does not name the hook's command shows our answer. */
export const BRIEFING_HEADING = "## majordomus — what this repository already knows";

type CopilotRow = {
  type?: unknown;
  data?: { hookType?: unknown; success?: unknown; output?: unknown; error?: unknown };
};

/** Copilot's events.jsonl: the newest start's `hook.end` rows; ours is the answer that opens with the heading. */
export function copilotVerdict(text: string): DeliveryVerdict {
  const rows: CopilotRow[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"sessionStart"')) continue;
    try {
      const row = JSON.parse(line) as CopilotRow;
      if (row.data?.hookType === "sessionStart") rows.push(row);
    } catch {}
  }
  const since = rows.findLastIndex((r) => r.type === "hook.start");
  const ends = rows.slice(since + 1).filter((r) => r.type === "hook.end");
  const context = (r: CopilotRow) => (r.data?.output as { additionalContext?: unknown } | undefined)?.additionalContext;
  const ours = ends.find((r) => r.data?.success === true && String(context(r)).startsWith(BRIEFING_HEADING));
  if (ours)
    return {
      state: "inline",
      cause: `the briefing reached the model whole (${String(context(ours)).length.toLocaleString("en-US")} characters)`,
    };
  const failed = ends.find((r) => r.data?.success === false);
  const error = (failed?.data?.error as { message?: unknown } | undefined)?.message ?? failed?.data?.error;
  return {
    state: "missing",
    cause: failed
      ? `a start hook failed${typeof error === "string" && error ? `: ${lastLine(error)}` : ""}`
      : "the client's transcript holds no answer of the start hook (it did not run, or printed nothing)",
  };
}

/** One row per client whose transcript majordomus reads; `late`: the file it writes as it exits, read when asked. */
export const DELIVERY_READERS: Record<
  string,
  { verdict: (text: string, shim: string) => DeliveryVerdict; late?: { file: string; complete: string } }
> = {
  "claude-code": { verdict: claudeVerdict },
  // Copilot writes events.jsonl as it exits; its last row is the session's shutdown (1.0.102, seen).
  copilot: { verdict: copilotVerdict, late: { file: "events.jsonl", complete: '"type":"session.shutdown"' } },
};

export const PENDING = "pending";

export function deliveryOf(provider: string, transcriptPath: string | undefined, shim: string): DeliveryVerdict {
  const reader = DELIVERY_READERS[provider];
  if (!reader)
    return {
      state: "not_provable",
      cause: `majordomus reads no transcript of ${provider}: what reached its model cannot be shown`,
    };
  if (!transcriptPath) return { state: "not_provable", cause: "the client named no transcript for this session" };
  const text = readBounded(provider, transcriptPath);
  if (text === undefined)
    return {
      state: "not_provable",
      cause: "the client's transcript could not be read as a plain file of its own transcript folder",
    };
  return reader.verdict(text, shim);
}

export function deliveryAtEnd(
  provider: string,
  transcriptPath: string | undefined,
  shim: string,
): { state: DeliveryState | typeof PENDING; cause: string } {
  if (DELIVERY_READERS[provider]?.late && transcriptPath && !existsSync(transcriptPath))
    return { state: PENDING, cause: "the client writes its transcript when it exits, after its end hook" };
  return deliveryOf(provider, transcriptPath, shim);
}

/** A pending verdict, read from the transcript written since; pending while it lacks its closing row. */
export function settle(
  provider: string,
  transcriptPath: string | undefined,
): { state: DeliveryState | typeof PENDING; cause: string } {
  // Only a file of the name the client writes: the path comes back from the ledger.
  const late = DELIVERY_READERS[provider]?.late;
  if (!late || !transcriptPath || basename(transcriptPath) !== late.file || !existsSync(transcriptPath))
    return { state: "not_provable", cause: "the client's transcript of the session was never written" };
  const text = readBounded(provider, transcriptPath);
  if (text !== undefined && !text.includes(late.complete))
    return { state: PENDING, cause: "the client is still writing its transcript of the session" };
  return deliveryOf(provider, transcriptPath, "");
}
