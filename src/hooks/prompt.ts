/**
 * `capture prompt --provider P`: archive the person's prompt as sent, secrets redacted first, one JSON record per
 * prompt id in `.ai/local/prompts/` (0700/0600). Client-injected messages are skipped. The only text handed to the
 * model is the notice that another session opened beside this one; nothing exits 2.
 */
import { join } from "node:path";
import { wall, isoStamp, compactStampMs } from "../lib/clock.ts";
import { ensureDir, publishNew, randomHex } from "../lib/fsx.ts";
import { log } from "../lib/log.ts";
import { createHash } from "../lib/runtime.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { sectionPath } from "../layer/manifest.ts";
import { appendEvent } from "../ledger/store.ts";
import { pick, type Hooks, type Provider } from "../providers/index.ts";
import { episodeKey, keyOf } from "../session/keys.ts";
import { removeStop, stopOf } from "../session/store.ts";
import { cleanId, type Payload } from "./payload.ts";
import { redact, redactShapes } from "../lib/redact.ts";
import { payloadSession, personsPrompt } from "./delivery.ts";

export const PROMPT_SCHEMA = "prompt/v1";

export function promptsDir(ws: Workspace, selfTestDir?: string): string {
  return selfTestDir || sectionPath(ws.layer, "prompts");
}

export type PromptMode = { selfTestDir?: string };

export type PromptOutcome =
  { status: "archived"; path: string } | { status: "skipped"; why: string } | { status: "failed"; why: string };

/** Why a prompt is not the person's (a source that is no person, a message the client injected), if it is not. */
function notAPerson(
  provider: Provider & { hooks: Hooks },
  data: Record<string, unknown>,
  raw: string,
): string | undefined {
  const source = cleanId(pick(data, provider.hooks.keys.prompt_source));
  const sources = provider.hooks.person_sources;
  if (source !== undefined && sources.length > 0 && !sources.includes(source))
    return `source ${source} is not a person`;
  const trimmed = raw.trimStart();
  if (provider.hooks.injected_markers.some((m) => trimmed.startsWith(m))) return "a message the client injected";
  return undefined;
}

async function receipt(ws: Workspace, provider: Provider, providerSession: string | undefined): Promise<void> {
  await appendEvent(ws, "provider.event.received", {
    provider: provider.id,
    provider_event: "prompt",
    provider_session: providerSession ?? "none",
  }).catch((err) => log.warn(`the receipt could not be written: ${(err as Error).message}`));
}

async function failed(ws: Workspace, provider: Provider, reason: string, selfTest: boolean): Promise<PromptOutcome> {
  // A parser's message may quote the payload: redacted.
  const why = redactShapes(reason);
  log.warn(`capture prompt: ${why}`);
  if (!selfTest)
    await appendEvent(ws, "provider.event.failed", {
      provider: provider.id,
      provider_event: "prompt",
      reason: why,
    }).catch(() => undefined);
  return { status: "failed", why };
}

/** A person's next prompt in an episode stopped at its usage limit: it is at work again (its stop file goes). */
async function atWorkAgain(ws: Workspace): Promise<void> {
  if (ws.episode && stopOf(ws.layer, keyOf(ws.episode), ws.episode.session_id)) removeStop(ws.layer, keyOf(ws.episode));
}

export async function capturePrompt(
  ws: Workspace,
  provider: Provider & { hooks: Hooks },
  payload: Payload,
  mode: PromptMode = {},
): Promise<PromptOutcome> {
  const keys = provider.hooks.keys;
  const providerSession = payloadSession(provider, payload);
  const selfTest = Boolean(mode.selfTestDir);
  const fail = (reason: string) => failed(ws, provider, reason, selfTest);
  if (!selfTest) await Promise.all([receipt(ws, provider, providerSession), atWorkAgain(ws)]);
  if (payload.problem || !payload.data) return fail(payload.problem ?? "no payload on stdin; nothing captured");
  const sent = keys.prompt_text.map((k) => payload.data![k]).find((v) => typeof v === "string") as string | undefined;
  const raw = sent === undefined ? undefined : personsPrompt(provider, sent);
  if (raw === undefined)
    return fail(
      `the payload carries none of ${keys.prompt_text.join(", ")} (it ` +
        `has: ${Object.keys(payload.data).join(", ") || "no keys"}); nothing captured`,
    );
  const notPersons = notAPerson(provider, payload.data, raw);
  if (notPersons) return { status: "skipped", why: notPersons };
  const clean = await redact(raw);
  const promptId = cleanId(pick(payload.data, keys.prompt_id));
  const at = wall();
  // The workspace's episode, as the receipt's: attributed once (session/attribution.ts).
  const episode = ws.episodeId;
  const record: Record<string, unknown> = {
    schema: PROMPT_SCHEMA,
    captured_at: isoStamp(at),
    provider: provider.id,
    prompt_id: promptId ?? null,
    provider_session: providerSession ?? null,
    episode: episode ?? null,
    episode_link: episode ? "open" : "orphan",
    branch: ws.position.branch,
    head: ws.position.head,
    bytes: Buffer.byteLength(clean.text, "utf8"),
    sha256: createHash("sha256", clean.text),
    text: clean.text,
    ...(clean.redacted.length > 0 ? { redacted: clean.redacted } : {}),
  };
  const dir = promptsDir(ws, mode.selfTestDir);
  ensureDir(dir, 0o700);
  // One record per prompt id: a repeated delivery finds the name taken.
  const name = promptId ? `${episodeKey(promptId)}.json` : `${compactStampMs(at)}-${randomHex(4)}.json`;
  const path = join(dir, name);
  if (!publishNew(path, `${JSON.stringify(record, null, 2)}\n`, 0o600))
    return { status: "skipped", why: `prompt ${promptId} is already archived` };
  return { status: "archived", path };
}

/**
 * The notices of sessions that opened beside this episode since its last prompt, taken once, fitted to the prompt
 * channel.
 */
export async function promptContext(ws: Workspace, provider: Provider & { hooks: Hooks }): Promise<string | undefined> {
  if (!ws.episodeId) return undefined;
  const { takeNotices } = await import("../session/notices.ts");
  const notices = takeNotices(ws.layer, ws.episodeId);
  if (notices.length === 0) return undefined;
  const [{ noticeLines }, { activeTask }, { spend }, { budgetFor }, policy] = await Promise.all([
    import("../views/live.ts"),
    import("../task/record.ts"),
    import("../views/budget.ts"),
    import("../providers/index.ts"),
    ws.policy().catch(() => undefined),
  ]);
  const task = notices.some((n) => n.task_id) ? (await activeTask(ws.layer)).active : undefined;
  const text = spend([{ id: "notices", lines: noticeLines(notices, ws.at, task) }], undefined, {
    order: [],
    linesKey: "session.briefing_budget_lines",
    budget: budgetFor(provider.hooks, "prompt", policy?.policy),
    closing: () => undefined,
    cutAtEnd: (limits) => `(Cut here to fit ${limits}: \`majordomus session status\` lists every open episode.)`,
  }).lines.join("\n");
  await appendEvent(ws, "session.told", { provider: provider.id, of: notices.map((n) => n.session_id) }).catch(
    (err: Error) => log.warn(`the notice was not recorded: ${err.message}`),
  );
  return text;
}
