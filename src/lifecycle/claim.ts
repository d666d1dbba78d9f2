/**
 * The one right to close an episode, and the promise to: `<state>/sessions-closing/<episode>.claim`, created once with
 * link(2), saying what was asked and who took it. When the taker dies first, any later event, `recover`, `session
 * close` or `doctor --fix` completes it. Its own module, so the end hook loads nothing of the close to take it.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { stamp } from "../lib/clock.ts";
import { ensureDir, publishNew, unlinkQuiet } from "../lib/fsx.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { alive, me, type Holder } from "../lib/holder.ts";
import { sectionPath, type Layer } from "../layer/manifest.ts";
import type { Outcome } from "../session/schema.ts";
import { episodePath, listOpen } from "../session/store.ts";

export const CLAIM_SCHEMA = "close-claim/v1";

export type Claim = {
  schema: typeof CLAIM_SCHEMA;
  session_id: string;
  provider: string;
  provider_session: string;
  reason?: string;
  outcome: Outcome;
  claimed_at: string;
  by: Holder;
};

export type Intent = Omit<Claim, "schema" | "claimed_at" | "by">;

export function claimsDir(layer: Layer): string {
  return join(sectionPath(layer, "state"), "sessions-closing");
}

const claimPath = (layer: Layer, episodeId: string) => join(claimsDir(layer), `${episodeId}.claim`);

export function claimClose(layer: Layer, intent: Intent): boolean {
  ensureDir(claimsDir(layer), 0o700);
  const claim: Claim = { schema: CLAIM_SCHEMA, ...intent, claimed_at: stamp(), by: me() };
  return publishNew(claimPath(layer, intent.session_id), `${JSON.stringify(claim)}\n`, 0o600, { durable: false });
}

export type ClaimRead = { episodeId: string; claim?: Claim; problem?: string };

function parse(episodeId: string, text: string): ClaimRead {
  try {
    const data = JSON.parse(text) as Partial<Claim>;
    if (data.schema === CLAIM_SCHEMA && data.session_id === episodeId && typeof data.provider_session === "string")
      return { episodeId, claim: data as Claim };
  } catch {
    const legacy = /^(\d+) (\S+)$/.exec(text.trim());
    if (legacy)
      return {
        episodeId,
        claim: {
          schema: CLAIM_SCHEMA,
          session_id: episodeId,
          provider: "none",
          provider_session: "",
          outcome: "interrupted",
          claimed_at: legacy[2]!,
          by: { pid: Number(legacy[1]) },
        },
      };
  }
  return { episodeId, problem: `claims/${episodeId}.claim is not a close claim` };
}

export function hasClaims(layer: Layer): boolean {
  try {
    return readdirSync(claimsDir(layer)).some((n) => n.endsWith(".claim"));
  } catch {
    return false;
  }
}

export function readClaim(layer: Layer, episodeId: string): ClaimRead | undefined {
  try {
    return parse(episodeId, readLayerFile(claimPath(layer, episodeId)));
  } catch {
    return undefined;
  }
}

export function readClaims(layer: Layer): ClaimRead[] {
  let names: string[];
  try {
    names = readdirSync(claimsDir(layer)).filter((n) => n.endsWith(".claim"));
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const read = readClaim(layer, n.slice(0, -".claim".length));
    return read ? [read] : [];
  });
}

export function inProgress(claim: Claim): boolean {
  return alive(claim.by);
}

export function releaseClaim(layer: Layer, episodeId: string): void {
  unlinkQuiet(claimPath(layer, episodeId));
}

export function closeLock(layer: Layer, episodeId: string): string {
  return join(claimsDir(layer), `${episodeId}.lock`);
}

const CLAIM_APPEARS_MS = 250;
/**
 * Wait at most `ms` until no close here is still being written: a start after an end must brief from that end's
 * record. `followsEnd` (a cleared session) also waits up to CLAIM_APPEARS_MS for the end to claim, while another
 * episode of the same client is open.
 */
export async function awaitCloses(
  layer: Layer,
  ms: number,
  followsEnd: { provider: string; providerSession: string } | undefined,
): Promise<number> {
  const started = Date.now();
  let slept = false;
  const nap = () => ((slept = true), sleep(5));
  const busy = () =>
    readClaims(layer).some((c) => c.claim !== undefined && c.claim.by.pid !== process.pid && inProgress(c.claim));
  if (followsEnd && !busy()) {
    const ending = (await listOpen(layer))
      .filter(
        (e) => e.episode?.provider === followsEnd.provider && e.episode.provider_session !== followsEnd.providerSession,
      )
      .map((e) => episodePath(layer, e.key));
    const stillOpen = () => ending.some((path) => existsSync(path));
    while (stillOpen() && !busy() && Date.now() - started < CLAIM_APPEARS_MS) await nap();
  }
  while (busy() && Date.now() - started < ms) await nap();
  return slept ? Math.max(1, Date.now() - started) : 0;
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
