/** The providers table (`share/providers.yaml`): what each client can do, and how its hooks are wired. */
import { readData } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";
import type { ConsentKey, CredentialKey, Policy } from "../policy/index.ts";
import type { Budget, Counts } from "../lib/fit.ts";
import { clientEnv, type EnvName } from "../lib/env.ts";

export const ASPECTS = ["prompt", "session", "mod", "mcp"] as const;
export type Aspect = (typeof ASPECTS)[number];
import type { Channel, EventRow, HookEvent } from "./hooks.ts";
export { answered, HOOK_EVENTS, type Channel, type EventRow, type HookEvent } from "./hooks.ts";

export type Capability = { state: "hook" | "none" | "module" | "server"; source: string };
export type ModRow = {
  source: string;
  target: string;
  switch: ConsentKey;
  features?: Partial<Record<CredentialKey, string>>;
};

export type BudgetRow = { chars: number; limit?: number; counts: Counts; channel: string; source: string };

export type Hooks = {
  config: string;
  command: string;
  /** The command on Windows, for a client that takes one per shell (the `flat` dialect). */
  powershell?: string;
  /** The client's shell, and how it hands over the project folder. */
  launch: { shell: string; project_dir_env?: string; project_dir_replaced?: string };
  matcher?: string;
  executable?: string;
  trust?: string;
  handler_name?: string;
  /** How the hook file holds an event's handlers (wiring/dialects.ts): nested under a matcher unless said. */
  dialect?: "nested" | "flat" | "plugin";
  /** A client with no command hooks: the plugin of ours it loads, which runs the hook file's shims (opencode). */
  plugin?: { source: string; target: string };
  briefing?: "plain" | "additional_context" | "top_level_context";
  /** Text the client puts before the person's prompt, removed before archiving. */
  prompt_prefix?: "hook_context";
  /**
   * `advisory`: fires on every check, not only on a compaction: no checkpoint is derived from it. `boot`: its answer
   * replaces the client's summary (our plugin puts it in the summary's place): the fresh window's boot when it is on.
   */
  compaction?: "precise" | "advisory" | "boot";
  session_env?: string;
  /** Other clients that run this client's hook file too, each with the variable it sets for those calls. */
  also_run_by?: Record<string, string>;
  /** Start sources meaning the previous session just ended (its end hook runs beside this start). */
  after_end_sources?: string[];
  keys: {
    session: string[];
    source: string[];
    reason: string[];
    prompt_text: string[];
    prompt_id: string[];
    prompt_source: string[];
    transcript?: string[];
    /** The API error that ended a turn (the `limit` event). */
    error?: string[];
  };
  /** The errors that mean a usage or rate limit: the episode is marked stopped (hooks/limit.ts). */
  limit_errors?: string[];
  /** Where the client keeps a session's transcript when no payload names it: a file under its home folder. */
  transcript_file?: { home_env: EnvName; home: string; path: string };
  deliberate_reasons: string[];
  person_sources: string[];
  injected_markers: string[];
  /** `limit` only for a client that says an API error ended a turn; `answered()` lists the rows there are. */
  events: Record<HookEvent, EventRow>;
  budgets: Partial<Record<Channel, BudgetRow>>;
  end_budget_ms: number;
  mods?: Record<string, ModRow>;
  mcp?: { config: string; server: string; approval?: string };
};

/** The adapted clients, closed: a test table keyed by it misses a client as a type error. */
export const CLIENT_IDS = ["claude-code", "codex", "gemini", "copilot", "opencode"] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

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

export function pick(payload: Record<string, unknown> | undefined, candidates: readonly string[]): string | undefined {
  if (!payload) return undefined;
  for (const key of candidates) {
    const value = payload[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/** The other client that made this hook call (its variable set, not our own session): its own hooks answer it. */
export function calledByAnother(hooks: Hooks, session: string | undefined): string | undefined {
  const own = hooks.session_env ? clientEnv(hooks.session_env) : undefined;
  if (own !== undefined && own !== "" && own === session) return undefined;
  return Object.entries(hooks.also_run_by ?? {}).find(([, name]) => (clientEnv(name) ?? "") !== "")?.[0];
}

/** The table's budget, lowered (never raised) by `session.briefing_budget_chars`. */
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
