/**
 * The MCP server over the continuity account (the official SDK). Every tool is read-only and annotated so; answers
 * are the HTTP API's JSON. Loaded only by `mcp` and `serve`: no hook pays for the SDK.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { VERSION } from "../lib/version.ts";
import type { Account } from "./account.ts";
import type { Connection } from "./connections.ts";
import type { Caller } from "./history.ts";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
export const RESOURCE_URI = "majordomus://continuity";

const asText = (doc: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(doc, null, 2) }] });

const TOOLS = [
  {
    name: "continuity",
    title: "Continuity of this checkout",
    description:
      "What the last session left for this checkout: the open episode(s), the active task, the " +
      "handover to resume from and the newest checkpoint, each with its git label " +
      "(exact/advanced/diverged/…) and freshness label side by side and its age, the Next " +
      "Action verbatim (or why it is withheld), the open questions that block acceptance, and " +
      "what to run next. Read-only.",
    answer: (a: Account) => a.continuity(),
  },
  {
    name: "episodes",
    title: "Episodes",
    description:
      "The open episodes of this checkout and the recent closed ones on this branch, with their outcome. Read-only.",
    answer: (a: Account) => a.episodes(),
  },
  {
    name: "handovers",
    title: "Handover candidates",
    description:
      "The handover records the resolver considered for this checkout, each with its verdict " +
      "(selected, superseded, rejected) and the reason (the selected one, the one shown beside " +
      "it and the newest 20 others; the rest are counted in omitted), and the selected one with " +
      "its labels. Read-only.",
    answer: (a: Account) => a.handovers(),
  },
] as const;

export function mcpServer(account: Account, caller: Caller, connection?: Connection): McpServer {
  const server = new McpServer(
    { name: "majordomus", version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "majordomus keeps this repository's continuity across sessions. Call `continuity` before " +
        "starting work: it gives the handover to resume from (its Next Action, labelled against " +
        "git and by age; a stale one is history) and what blocks acceptance. Read-only.",
    },
  );
  for (const t of TOOLS) {
    server.registerTool(
      t.name,
      { title: t.title, description: t.description, annotations: { title: t.title, ...READ_ONLY } },
      async () => asText(await t.answer(account)),
    );
  }
  contextTool(server, account);
  historyTools(server, account.cwd, caller);
  if (connection) connectionTools(server, connection);
  server.registerResource(
    "continuity",
    RESOURCE_URI,
    {
      title: "Continuity of this checkout",
      description: "The same account as the continuity tool",
      mimeType: "application/json",
    },
    async (uri) => ({
      contents: [
        { uri: uri.href, mimeType: "application/json", text: JSON.stringify(await account.continuity(), null, 2) },
      ],
    }),
  );
  return server;
}

function contextTool(server: McpServer, account: Account): void {
  server.registerTool(
    "context",
    {
      title: "Context of this checkout",
      description:
        "Everything the layer knows, in authority order (git, task, open questions, decisions, " +
        "checkpoint, handover, files, history), as text within a line budget. Read-only.",
      inputSchema: {
        budget_lines: z
          .number()
          .int()
          .min(10)
          .max(2000)
          .optional()
          .describe("Most lines to return (default: the policy's context.builder_budget_lines)"),
      },
      annotations: { title: "Context of this checkout", ...READ_ONLY },
    },
    async ({ budget_lines }) => {
      const built = await account.context(budget_lines);
      return { content: [{ type: "text" as const, text: built.text }] };
    },
  );
}

async function refusing(work: () => Promise<unknown>) {
  try {
    return asText(await work());
  } catch (err) {
    const hint = (err as { hint?: string }).hint;
    return {
      isError: true,
      content: [{ type: "text" as const, text: hint ? `${(err as Error).message}; ${hint}` : (err as Error).message }],
    };
  }
}

const WINDOW = z.union([z.number().int().min(0), z.enum(["@current", "@previous"])]);
const SESSION = z
  .string()
  .max(200)
  .optional()
  .describe("The Claude Code session (filled in by the majordomus mod; default: the session that started this server)");
type History = typeof import("./history.ts");
const HISTORY_TOOLS = [
  {
    name: "history_windows",
    title: "Windows of this session",
    description:
      "The context windows of the current Claude Code session, split at its compactions (oldest " +
      "first), with their message ranges; `@previous` names the one before the current. Read " +
      "from the client's own transcript, never stored. Read-only.",
    inputSchema: { session: SESSION },
    answer: (h: History, cwd: string, args: Record<string, unknown>, caller: Caller) =>
      h.historyWindows(cwd, args as Parameters<History["historyWindows"]>[1], caller),
  },
  {
    name: "history_list",
    title: "Messages of this session",
    description:
      "The messages of the current session's transcript, oldest first, one line each (number, " +
      "window, role, a preview); a literal search (case-insensitive) and paging. Text only: no " +
      "thinking, no raw tool payloads. Read-only.",
    inputSchema: {
      session: SESSION,
      query: z.string().max(200).optional().describe("Only messages whose text contains this, literally"),
      window: WINDOW.optional().describe("Only this window: a number, @current or @previous"),
      offset: z.number().int().min(0).optional().describe("Skip this many matches (the previous answer's next_offset)"),
      limit: z.number().int().min(1).max(100).optional().describe("At most this many (default 20)"),
    },
    answer: (h: History, cwd: string, args: Record<string, unknown>, caller: Caller) =>
      h.historyList(cwd, args as Parameters<History["historyList"]>[1], caller),
  },
  {
    name: "history_read",
    title: "Read messages of this session",
    description:
      "One message of the current session's transcript by its number, or a range of up to 20: " +
      "its text blocks and the client's rendered attachments only, never thinking or raw " +
      "payloads. Read-only.",
    inputSchema: {
      session: SESSION,
      seq: z.number().int().min(1).describe("The message's number (history_list gives it)"),
      to: z.number().int().min(1).optional().describe("The last message of a range"),
    },
    answer: (h: History, cwd: string, args: Record<string, unknown>, caller: Caller) =>
      h.historyRead(cwd, args as Parameters<History["historyRead"]>[1], caller),
  },
] as const;

function historyTools(server: McpServer, cwd: string, caller: Caller): void {
  for (const t of HISTORY_TOOLS) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { title: t.title, ...READ_ONLY },
      },
      async (args: Record<string, unknown>) =>
        refusing(async () => t.answer(await import("./history.ts"), cwd, args, caller)),
    );
  }
}

function connectionTools(server: McpServer, connection: Connection): void {
  const writes = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
  server.registerTool(
    "session_attach",
    {
      title: "Attach this client to its episode",
      description:
        "For a client without hooks: open this client's episode in this checkout, or resume it " +
        "when it is open (attach again within the grace after a dropped connection). Every " +
        "message after it keeps it alive; session_detach closes it.",
      inputSchema: {
        client: z.string().describe("The client's name, e.g. cursor"),
        external_id: z.string().describe("The client's own id for this session"),
      },
      annotations: { title: "Attach this client to its episode", ...writes },
    },
    async ({ client, external_id }) => refusing(() => connection.attach(client, external_id)),
  );
  server.registerTool(
    "session_detach",
    {
      title: "Detach and close the episode",
      description: "Close this client's attached episode into its shared record, as closed.",
      annotations: { title: "Detach and close the episode", ...writes },
    },
    async () => refusing(() => connection.detach()),
  );
}
