/** The providers table (`share/providers.yaml`): what each client can do, and how its hooks are wired. */
import { readData } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";
import type { ConsentKey, CredentialKey, Policy } from "../policy/index.ts";
import type { Budget, Counts } from "../lib/fit.ts";

export const ASPECTS = ["prompt", "session", "mod", "mcp"] as const;
export type Aspect = (typeof ASPECTS)[number];
import type { Channel, EventRow, HookEvent } from "./hooks.ts";
export { HOOK_EVENTS, type Channel, type EventRow, type HookEvent } from "./hooks.ts";

export type Capability = { state: "hook" | "none" | "module" | "server"; source: string };
/** `features`: local consents that work only through this mod (key → what the person calls it), reported beside it. */
export type ModRow = {
  source: string;
  target: string;
  switch: ConsentKey;
  features?: Partial<Record<CredentialKey, string>>;
};

/** A channel's budget row: majordomus's budget, the client's own limit (when it has one), how both are counted, and where the figure comes from. */
export type BudgetRow = { chars: number; limit?: number; counts: Counts; channel: string; source: string };

export type Hooks = {
  config: string;
  /** The command the client's configuration runs for an event: `{shim}` is the shim's path from the repository root. */
  command: string;
  /** How the client starts `command`: its shell, and how it hands over the project folder (an environment variable, and/or a word of the text it replaces with the shell-quoted folder). */
  launch: { shell: string; project_dir_env?: string; project_dir_replaced?: string };
  /** The matcher an entry carries (every variant of the event), when the client wants one. */
  matcher?: string;
  /** The client's executable, looked for on PATH. */
  executable?: string;
  /** How the client decides to run a project's hooks at all (a row of wiring/trust.ts), when it does. */
  trust?: string;
  /** The name each handler carries (`{event}` is the client's event name), for a client that names them. */
  handler_name?: string;
  /** How the briefing is handed to the client (a row of BRIEFING_ENVELOPES): plain stdout unless said. */
  briefing?: "plain" | "additional_context";
  /** Text the client puts in front of the person's prompt (a row of PROMPT_PREFIXES), removed before archiving. */
  prompt_prefix?: "hook_context";
  /** `advisory`: the compaction event fires on every check, not only when the client compacts: no checkpoint is derived from it. */
  compaction?: "precise" | "advisory";
  session_env?: string;
  /** Start sources that mean the client has just ended the previous session (its end hook runs beside this start). */
  after_end_sources?: string[];
  keys: {
    session: string[];
    source: string[];
    reason: string[];
    prompt_text: string[];
    prompt_id: string[];
    prompt_source: string[];
    transcript?: string[];
  };
  deliberate_reasons: string[];
  person_sources: string[];
  injected_markers: string[];
  events: Record<HookEvent, EventRow>;
  budgets: Partial<Record<Channel, BudgetRow>>;
  /** The longest the client lets its end hook run, in milliseconds. */
  end_budget_ms: number;
  mods?: Record<string, ModRow>;
  /** The project's MCP configuration file, and the server name majordomus goes by in it. */
  mcp?: { config: string; server: string };
};

export type Provider = {
  id: string;
  title: string;
  tested_version: string;
  capabilities: Record<Aspect, Capability>;
  hooks?: Hooks;
};

let cache: Map<string, Provider> | undefined;

export async function providers(): Promise<Map<string, Provider>> {
  if (cache) return cache;
  const data = (await readData("share/providers.yaml")) as { providers: Record<string, Omit<Provider, "id">> };
  cache = new Map(Object.entries(data.providers).map(([id, row]) => [id, { id, ...row }]));
  return cache;
}

/** A provider majordomus has an adapter for, or a usage failure naming the ones it has. */
export async function adapted(id: string): Promise<Provider & { hooks: Hooks }> {
  const table = await providers();
  const row = table.get(id);
  if (row?.hooks) return row as Provider & { hooks: Hooks };
  const ready = [...table.values()].filter((p) => p.hooks).map((p) => p.id);
  const why = row
    ? `${row.title} is known but has no adapter yet (capture status: unadapted)`
    : `unknown provider "${id}"`;
  throw new Failure("usage", why, `adapted providers: ${ready.join(", ")}`);
}

/** The first key of `candidates` present in the payload as a string or number, as a string. */
export function pick(payload: Record<string, unknown> | undefined, candidates: readonly string[]): string | undefined {
  if (!payload) return undefined;
  for (const key of candidates) {
    const value = payload[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/**
 * What majordomus may hand a client on a channel: the table's budget, lowered (never raised) by
 * the policy's `session.briefing_budget_chars`. A channel the client does not have has none.
 */
export function budgetFor(
  hooks: Pick<Hooks, "budgets">,
  channel: Channel,
  policy: Policy | undefined,
): Budget | undefined {
  const row = hooks.budgets[channel];
  if (!row) return undefined;
  const lowered = policy?.session?.briefing_budget_chars;
  const chars = lowered !== undefined && lowered < row.chars ? lowered : row.chars;
  return {
    chars,
    counts: row.counts,
    channel:
      lowered !== undefined && lowered < row.chars
        ? `${row.channel}, lowered by session.briefing_budget_chars`
        : row.channel,
  };
}
