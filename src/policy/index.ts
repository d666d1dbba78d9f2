/**
 * The policy (`.ai/repo/policy.yaml`): the only home of every threshold and switch. The loader
 * checks it against `share/schemas/policy.schema.json` and reports every problem with its key
 * path. Nothing here supplies a default: a key that is absent stays absent, and each reader says
 * what it does without it.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseYaml } from "../lib/runtime.ts";
import { Failure } from "../lib/failure.ts";
import { readLayerFileIfExists, RECORD_MAX_BYTES } from "../lib/safe-read.ts";
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
 * The checkout-local consents (`<state>/consent.yaml`, in the git-ignored half): the person's own
 * yes to the switches that act with their credentials. A tracked policy is anyone's file, so it
 * can ask for these but never grant them.
 */
export type Credentials = { path: string; granted: ReadonlySet<CredentialKey>; problem?: string };

export type LoadedPolicy = { path: string; policy: Policy; credentials?: Credentials };

/** Rules a JSON Schema cannot say: relations between keys. */
function crossChecks(policy: Policy, file: string): string[] {
  const out: string[] = [];
  const f = policy.session?.freshness;
  if (f && f.fresh_minutes >= f.stale_minutes) {
    out.push(
      `${file}: session.freshness: fresh_minutes (${f.fresh_minutes}) must be less than stale_minutes (${f.stale_minutes})`,
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

/** Check policy text; `strict` also refuses duplicate keys (slower parser, used by checks). */
export function parsePolicy(text: string, file: string, options: { strict?: boolean } = {}): Promise<Policy> {
  return parseDocument(POLICY, text, file, options);
}

/**
 * Reads the policy and the person's consent. Called by the workspace alone, which keeps the answer
 * for the command (workspace/workspace.ts: `ws.policy()`).
 */
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
  // A consent others could have written is not the person's: group- or world-writable, or another user's, grants nothing.
  if (stats && (stats.mode & 0o022) !== 0)
    return {
      path,
      granted: new Set(),
      problem: `${path} may be written by others (mode ${(stats.mode & 0o777).toString(8)}); no consent is read from it (\`chmod 600 ${path}\`)`,
    };
  if (stats && typeof process.getuid === "function" && stats.uid !== process.getuid())
    return { path, granted: new Set(), problem: `${path} belongs to another user; no consent is read from it` };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { path, granted: new Set() };
  }
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
  const granted = new Set<CredentialKey>();
  const problems: string[] = [];
  // Each group the consent switches live in (session, mcp): every key in it must be one this file grants.
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
  return { path, granted, problem: problems.length > 0 ? `${path}: ${problems.join("; ")}` : undefined };
}

async function readPolicy(path: string, options: { strict?: boolean }): Promise<LoadedPolicy> {
  // A page of settings: one larger than any record (a stranger's 20 MB one cost every hook 0.16 s) is named, not parsed.
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
 * Every switch majordomus obeys, as a dotted policy path. Two kinds: the lifecycle's own work is on
 * unless the policy says exactly `false`; a consent (majordomus writing into the user's own tree:
 * installing the mod, committing or pushing records) is off unless it says exactly `true`.
 */
export const SWITCHES = {
  "session.briefing_on_start": "on unless false",
  "session.checkpoint_on_compact": "on unless false",
  "session.handover_on_end": "on unless false",
  "session.handover_on_fill": "consent",
  "session.commit_record_on_end": "credentials",
  "session.push_record_on_end": "credentials",
  // Granted like the two above, by the local consent file alone: a tracked file must not let any
  // client that connects open and close episodes in the person's checkout.
  "mcp.connection_episodes": "credentials",
  // Replacing the client's own compaction changes what the person's agent knows mid-session: the
  // person says yes in this checkout, not whoever wrote the tracked policy.
  "session.fresh_window": "credentials",
  // Sharing copies the agent's words into the tracked half, where a commit publishes them: the
  // person says yes in this checkout, never a tracked file.
  "handover.share_authored": "credentials",
} as const satisfies Record<string, "on unless false" | "consent" | "credentials">;

export type SwitchKey = keyof typeof SWITCHES;
export type ConsentKey = { [K in SwitchKey]: (typeof SWITCHES)[K] extends "consent" ? K : never }[SwitchKey];
/** Switches that act with the person's credentials (a commit in their name, a push with their keys): granted only by the local consent file. */
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
 * Whether the person consented, in this checkout's own consent file, to `key`. What the tracked
 * policy says is the repository's wish, never consent: `asked` tells the caller it asked.
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

/** Whether a switch is on in this policy (an unreadable policy is `undefined`: consents are then off). Credentials: see granted(). */
export function switchOn(policy: Policy | undefined, key: Exclude<SwitchKey, CredentialKey>): boolean {
  const value = valueAt(policy, key);
  return SWITCHES[key] === "consent" ? value === true : value !== false;
}

/** Whether the consent at `key` (a dotted policy path, as a provider's mod row names it) is exactly true. */
export function consents(policy: Policy | undefined, key: ConsentKey): boolean {
  return switchOn(policy, key);
}

/** A required number from the policy, or a `missing` failure naming the key to add. */
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

/** Every leaf of the policy as [`a.b.c`, value], in file order; lists stay whole. */
export function flatten(value: unknown, prefix = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    flatten(v, prefix ? `${prefix}.${k}` : k),
  );
}
