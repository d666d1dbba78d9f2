/**
 * The one right to close an episode, and the promise to do it: a claim file created once, with
 * link(2), in `<state>/sessions-closing/<episode>.claim`. However many end events arrive, exactly
 * one takes the claim. The claim says what was asked (the client session, its reason, the outcome)
 * and who took it, so the close is an intent that outlives its taker: when the taker dies before the
 * record exists (a killed hook, a container that ends with its client), any later event in the
 * checkout, `recover`, `session close` or `doctor --fix` completes it (see finish.ts). Its own
 * module, so an end hook takes the claim without loading what the close itself needs.
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

/** Take the claim for this close; false when another event took it first. */
export function claimClose(layer: Layer, intent: Intent): boolean {
  ensureDir(claimsDir(layer), 0o700);
  const claim: Claim = { schema: CLAIM_SCHEMA, ...intent, claimed_at: stamp(), by: me() };
  return publishNew(claimPath(layer, intent.session_id), `${JSON.stringify(claim)}\n`, 0o600, { durable: false });
}

export type ClaimRead = { episodeId: string; claim?: Claim; problem?: string };

/** A claim file, read; a claim an older majordomus wrote (`<pid> <time>`) says only who took it. */
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

/** Whether any close claim is out in this checkout (one listing; no claim is read). */
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

/** Every claim in this checkout. */
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

/** Whether the claim's taker may still be writing the close (then nobody else touches it). */
export function inProgress(claim: Claim): boolean {
  return alive(claim.by);
}

/** The close is done: its claim goes. */
export function releaseClaim(layer: Layer, episodeId: string): void {
  unlinkQuiet(claimPath(layer, episodeId));
}

/** The lock under which a close is written and checked, so two completers never write two records. */
export function closeLock(layer: Layer, episodeId: string): string {
  return join(claimsDir(layer), `${episodeId}.lock`);
}

/** How long a start that follows an end (`/clear`) looks for that end's claim before it concludes the close is already done. */
const CLAIM_APPEARS_MS = 250;
/**
 * Wait, at most `ms`, until no close in this checkout is still being written by a live taker: a
 * start that follows an end must brief from the record that end derives. `followsEnd` (the client
 * said the session was cleared: its end hook runs beside this start) also waits, at most
 * CLAIM_APPEARS_MS, for that end to claim its close: the two hooks start within milliseconds of each
 * other, and the end may not have claimed yet. It waits only while another episode of the same
 * client is still open here (the one being ended); when none is, that close is done. Returns the wait.
 */
export async function awaitCloses(
  layer: Layer,
  ms: number,
  followsEnd: { provider: string; providerSession: string } | undefined,
): Promise<number> {
  const started = Date.now();
  // The time spent waiting, not looking: a look alone takes a millisecond on a slow disk, and is no wait.
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
