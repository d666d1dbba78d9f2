/** What the ledger says reached the model: the newest `session.delivery` lines, read from the end. */
import type { Layer } from "../layer/manifest.ts";
import { ledgerOf, newestFirst } from "../ledger/store.ts";
import { PENDING, settle } from "../transcript/delivery.ts";

/** How far back the ledger is read for a delivery verdict (a verdict is written once per closed episode). */
const LOOKBACK = 5_000;

export type DeliveryLine = {
  provider: string;
  provider_session: string;
  session: string;
  delivery: string;
  cause: string;
  at: string;
};

/** The newest verdict per provider (or only those of `session`), newest first, from the last LOOKBACK ledger lines. */
export function newestDeliveries(layer: Layer, only: { session?: string } = {}): Map<string, DeliveryLine> {
  try {
    return scan(layer, only);
  } catch {
    // A ledger that cannot be read holds no verdict: doctor names the ledger's own problem.
    return new Map();
  }
}

function scan(layer: Layer, only: { session?: string }): Map<string, DeliveryLine> {
  const out = new Map<string, DeliveryLine>();
  let seen = 0;
  for (const row of newestFirst(ledgerOf(layer).path)) {
    if (++seen > LOOKBACK) break;
    if (!row.ok) continue;
    const e = row.entry as Record<string, unknown>;
    if (e.event !== "session.delivery" || typeof e.provider !== "string" || out.has(e.provider)) continue;
    if (only.session !== undefined && e.session !== only.session) continue;
    const now =
      e.delivery === PENDING
        ? settle(e.provider, typeof e.transcript_path === "string" ? e.transcript_path : undefined)
        : undefined;
    out.set(e.provider, {
      provider: e.provider,
      provider_session: String(e.provider_session ?? "none"),
      session: String(e.session ?? "none"),
      delivery: now?.state ?? String(e.delivery),
      cause: now?.cause ?? String(e.cause ?? ""),
      at: String(e.ts ?? ""),
    });
  }
  return out;
}
