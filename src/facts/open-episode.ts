/** What `session status` and `session show` tell of an open episode: its age, where its start commit sits now, what reached the model. */
import { adapted } from "../providers/index.ts";
import { ago, divergence, type Divergence } from "../records/labels.ts";
import type { OpenEpisode } from "../session/store.ts";
import { deliveryOf, type DeliveryVerdict } from "../transcript/delivery.ts";
import type { Workspace } from "../workspace/workspace.ts";

export type DescribedEpisode = OpenEpisode & { age: string; start_label: Divergence };

export async function describeOpen(ws: Pick<Workspace, "position" | "at">, e: OpenEpisode): Promise<DescribedEpisode> {
  const label = await divergence({ head: e.start_head, branch: e.branch }, ws.position, "commits");
  return { ...e, age: ago(ws.at, e.opened_at), start_label: label };
}

/** What reached the model of an open episode's briefing, read now from its client's transcript (none for an episode opened by hand). */
export async function liveDelivery(e: OpenEpisode): Promise<DeliveryVerdict | null> {
  if (e.provider === "none") return null;
  const provider = await adapted(e.provider).catch(() => undefined);
  return provider ? deliveryOf(provider.id, e.transcript_path, provider.hooks.events.start.shim) : null;
}
