/**
 * The MCP entry `capture install` writes: a bare `majordomus` where the person's PATH finds one, else the recorded
 * binary's absolute path.
 */
import { basename } from "node:path";

export const MCP_COMMAND = "majordomus";
export type McpEntry = { type: "stdio"; command: string; args: ["mcp"] };

export const mcpEntry = (command: string = MCP_COMMAND): McpEntry => ({ type: "stdio", command, args: ["mcp"] });

export function isOurMcpEntry(entry: unknown): entry is McpEntry {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return false;
  const e = entry as Record<string, unknown>;
  if (Object.keys(e).sort().join(",") !== "args,command,type" || e.type !== "stdio") return false;
  if (!Array.isArray(e.args) || e.args.length !== 1 || e.args[0] !== "mcp" || typeof e.command !== "string")
    return false;
  return e.command === MCP_COMMAND || (e.command.startsWith("/") && basename(e.command) === MCP_COMMAND);
}

export function mcpCommandFor(
  onPath: string | undefined,
  recorded: string | undefined,
): { command: string; why: string } {
  if (onPath !== undefined)
    return { command: MCP_COMMAND, why: `names \`majordomus mcp\` (found on your PATH as ${onPath})` };
  if (recorded !== undefined)
    return {
      command: recorded,
      why:
        `names ${recorded} mcp by its absolute path: majordomus is not on your PATH, and the ` +
        `client starts the server from the PATH it was started with`,
    };
  return {
    command: MCP_COMMAND,
    why: "names `majordomus mcp`; no majordomus is on your PATH, so the client cannot start it until one is",
  };
}
