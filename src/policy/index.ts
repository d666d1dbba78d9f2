/**
 * The policy (`.ai/repo/policy.yaml`): the only home of every threshold and switch, checked against its schema with
 * each problem's key path. No defaults here: an absent key stays absent and each reader says what it does without it.
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { parseYaml } from "../lib/runtime.ts";
import { Failure } from "../lib/failure.ts";
import { readLayerFileIfExists, readPlain, RECORD_MAX_BYTES } from "../lib/safe-read.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import { parseDocument, type DocumentKind } from "../layer/document.ts";

export type Policy = {
  schema: "policy/v1";
  session?: {
    briefing_on_start?: boolean;
    briefing_budget_lines?: number;
    briefing_budget_chars?: number;
    git_deadline_ms?: number;
    handover_on_fill?: boolean;
    fresh_window?: boolean;
    fresh_window_manual?: "veto" | "summary";
    checkpoint_on_compact?: boolean;
    handover_on_end?: boolean;
    freshness?: { fresh_minutes: number; stale_minutes: number };
    stranded_after?: string;
    live_within?: string;
    record_sections?: string[];
    commit_record_on_end?: boolean;
    push_record_on_end?: boolean;
  };
  checkpoint?: { max_body_lines?: number };
  handover?: { required_sections?: string[]; share_authored?: boolean };
  context?: {
    builder_budget_lines?: number;
    builder_budget_chars?: number;
    max_list_items?: number;
    recent_decisions?: number;
  };
  ledger?: { retention_max_lines?: number };
  prompts?: { retention_max_days?: number; retention_max_bytes?: number };
  mcp?: { connection_episodes?: boolean; reattach_grace_minutes?: number };
  enforcement?: Array<{ name: string; wired_by: string }>;
};

/**
 * The person's own consents (`<state>/consent.yaml`, git-ignored) to switches that act with their credentials: a
 * tracked policy can ask for these, never grant them.
 */
export type Credentials = { path: string; granted: ReadonlySet<CredentialKey>; problem?: string };

export type LoadedPolicy = { path: string; policy: Policy; credentials?: Credentials };

function crossChecks(policy: Policy, file: string): string[] {
  const out: string[] = [];
  const f = policy.session?.freshness;
  if (f && f.fresh_minutes >= f.stale_minutes) {
    out.push(
      `${file}: session.freshness: fresh_minutes (${f.fresh_minutes}) must be less than ` +
        `stale_minutes (${f.stale_minutes})`,
    );
  }
  if (policy.session?.push_record_on_end === true && policy.session.commit_record_on_end !== true) {
    out.push(
      `${file}: session.push_record_on_end: is true but commit_record_on_end is not; there would be nothing to push`,
    );
  }
  return out;
}

const POLICY: DocumentKind<Policy> = {
  noun: "policy",
  schema: "share/schemas/policy.schema.json",
  syntaxHint: "fix the syntax; `majordomus init --extend` never overwrites an existing policy",
  crossChecks,
};

export function parsePolicy(text: string, file: string, options: { strict?: boolean } = {}): Promise<Policy> {
  return parseDocument(POLICY, text, file, options);
}

/** The policy and the person's consent; read by the workspace alone (`ws.policy()`). */
export async function loadPolicy(layer: Layer, options: { strict?: boolean } = {}): Promise<LoadedPolicy> {
  const path = sectionPath(layer, "policy");
  return { ...(await readPolicy(path, options)), credentials: await readCredentials(layer) };
}

export const CONSENT_FILE = "consent.yaml";

async function readCredentials(layer: Layer): Promise<Credentials | undefined> {
  let path: string;
  try {
    path = join(sectionPath(layer, "state"), CONSENT_FILE);
  } catch {
    return undefined;
  }
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats?.isSymbolicLink())
    return {
      path,
      granted: new Set(),
      problem: `${path} is a symbolic link; no consent is read from it (replace it with a file of your own)`,
    };
  // A consent others could have written (group- or world-writable, another user's) grants nothing.
  if (stats && (stats.mode & 0o022) !== 0)
    return {
      path,
      granted: new Set(),
      problem:
        `${path} may be written by others (mode ${(stats.mode & 0o777).toString(8)}); no consent ` +
        `is read from it (\`chmod 600 ${path}\`)`,
    };
  if (stats && typeof process.getuid === "function" && stats.uid !== process.getuid())
    return { path, granted: new Set(), problem: `${path} belongs to another user; no consent is read from it` };
  const text = readPlain(path);
  if (text === undefined) return { path, granted: new Set() };
  let data: unknown;
  try {
    data = await parseYaml(text);
  } catch (err) {
    return {
      path,
      granted: new Set(),
      problem: `${path} is not valid YAML (${(err as Error).message.split("\n")[0]}); no consent is read from it`,
    };
  }
  const { granted, problems } = grantsIn(data);
  return { path, granted, problem: problems.length > 0 ? `${path}: ${problems.join("; ")}` : undefined };
}

/** The switches a consent document grants (exactly `true`), and every key it may not name. */
function grantsIn(data: unknown): { granted: Set<CredentialKey>; problems: string[] } {
  const granted = new Set<CredentialKey>();
  const problems: string[] = [];
  const groups = new Set(CREDENTIAL_KEYS.map((k) => k.split(".")[0]!));
  for (const [group, block] of Object.entries((data as Record<string, unknown> | null) ?? {})) {
    if (!groups.has(group)) {
      problems.push(`undeclared key ${group}`);
      continue;
    }
    for (const [key, value] of Object.entries((block as Record<string, unknown> | null) ?? {})) {
      const full = `${group}.${key}`;
      if (!isCredentialKey(full))
        problems.push(`${full} is not a switch this file grants (it grants ${CREDENTIAL_KEYS.join(", ")})`);
      else if (value === true) granted.add(full);
    }
  }
  return { granted, problems };
}

async function readPolicy(path: string, options: { strict?: boolean }): Promise<LoadedPolicy> {
  // A policy larger than any record (a stranger's 20 MB one cost every hook 0.16 s) is named, not parsed.
  const text = readLayerFileIfExists(path, { maxBytes: RECORD_MAX_BYTES });
  if (text === undefined)
    throw new Failure(
      "missing",
      `policy file ${path} is missing`,
      "run `majordomus init --extend` to restore it from the skeleton",
    );
  return { path, policy: await parsePolicy(text, path, options) };
}

/**
 * Every switch majordomus obeys. Lifecycle work is on unless the policy says exactly `false`; a consent (writing into
 * the person's tree: the mod, commits, pushes) is off unless exactly `true`.
 */
export const SWITCHES = {
  "session.briefing_on_start": "on unless false",
  "session.checkpoint_on_compact": "on unless false",
  "session.handover_on_end": "on unless false",
  "session.handover_on_fill": "consent",
  "session.commit_record_on_end": "credentials",
  "session.push_record_on_end": "credentials",
  // Credentials too: a tracked file must not let any connecting client open and close episodes in the person's
  // checkout.
  "mcp.connection_episodes": "credentials",
  // Replacing the client's own compaction changes what the agent knows mid-session: the person says yes here.
  "session.fresh_window": "credentials",
  // Sharing copies the agent's words where a commit publishes them: the person says yes here.
  "handover.share_authored": "credentials",
} as const satisfies Record<string, "on unless false" | "consent" | "credentials">;

export type SwitchKey = keyof typeof SWITCHES;
export type ConsentKey = { [K in SwitchKey]: (typeof SWITCHES)[K] extends "consent" ? K : never }[SwitchKey];
export type CredentialKey = { [K in SwitchKey]: (typeof SWITCHES)[K] extends "credentials" ? K : never }[SwitchKey];

export const CONSENT_KEYS = (Object.keys(SWITCHES) as SwitchKey[]).filter(
  (k): k is ConsentKey => SWITCHES[k] === "consent",
);
export const CREDENTIAL_KEYS = (Object.keys(SWITCHES) as SwitchKey[]).filter(
  (k): k is CredentialKey => SWITCHES[k] === "credentials",
);

export function isCredentialKey(key: string): key is CredentialKey {
  return (CREDENTIAL_KEYS as readonly string[]).includes(key);
}

/**
 * Whether this checkout's own consent file grants `key`; the tracked policy's wish is never consent (`asked` says it
 * asked).
 */
export function granted(loaded: LoadedPolicy | undefined, key: CredentialKey): { on: boolean; asked: boolean } {
  return { on: loaded?.credentials?.granted.has(key) === true, asked: valueAt(loaded?.policy, key) === true };
}

export function isConsentKey(key: string): key is ConsentKey {
  return (CONSENT_KEYS as readonly string[]).includes(key);
}

function valueAt(policy: Policy | undefined, key: string): unknown {
  let value: unknown = policy;
  for (const part of key.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
  return value;
}

export function switchOn(policy: Policy | undefined, key: Exclude<SwitchKey, CredentialKey>): boolean {
  const value = valueAt(policy, key);
  return SWITCHES[key] === "consent" ? value === true : value !== false;
}

export function consents(policy: Policy | undefined, key: ConsentKey): boolean {
  return switchOn(policy, key);
}

export function requireNumber(loaded: LoadedPolicy, keyPath: string): number {
  let value: unknown = loaded.policy;
  for (const part of keyPath.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
  if (typeof value !== "number") {
    throw new Failure(
      "missing",
      `${loaded.path} declares no ${keyPath}`,
      `add ${keyPath} to the policy (docs/continuity.md lists every policy key)`,
    );
  }
  return value;
}

export function flatten(value: unknown, prefix = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    flatten(v, prefix ? `${prefix}.${k}` : k),
  );
}
