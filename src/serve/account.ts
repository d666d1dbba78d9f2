/**
 * The read side's one source: a checkout's continuity account from the briefing's facts, read-only. Answers are kept
 * 2 s: others write the records, and a longer cache would show an episode already closed.
 */
import { parseDuration } from "../lib/clock.ts";
import { workspace, type Workspace } from "../workspace/workspace.ts";
import { gatherFacts } from "../facts/gather.ts";
import { CONTEXT_NEEDS, contextView } from "../views/context.ts";
import { continuityView, type Continuity, type ContinuityFacts } from "../views/continuity.ts";
import { pageHtml } from "../views/page.ts";
import { uptakeReport } from "../views/uptake.ts";
import { listOpen } from "../session/store.ts";
import { readClosed } from "../session/closed.ts";
import { sameCheckout } from "../repo/where.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import { explainOffered } from "../records/shared.ts";
import { placeFor } from "../facts/place.ts";
import { view } from "../records/view.ts";
import { openedBefore } from "../lifecycle/stranded.ts";
import { readClaims } from "../lifecycle/claim.ts";
import { status, wiredProviders, type Row } from "../wiring/status.ts";

export const CACHE_MS = 2_000;
export const PAGE_REFRESH_S = 5;
const WIRING_MS = 60_000;
const RECENT_CLOSED = 10;
/** The page's uptake card counts this many of the newest closed records, as `majordomus report` does by default. */
const UPTAKE_LAST = 50;

export class Account {
  private readonly cache = new Map<string, { at: number; value: Promise<unknown> }>();

  constructor(
    readonly cwd: string,
    private readonly clock: () => number = Date.now,
  ) {}

  private cached<T>(key: string, make: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < CACHE_MS) return hit.value as Promise<T>;
    const value = make();
    this.cache.set(key, { at: now, value });
    value.catch(() => this.cache.delete(key));
    return value;
  }

  private here(): Promise<Workspace> {
    return workspace(this.cwd, undefined, { readOnly: true });
  }

  private async facts(ws: Workspace): Promise<ContinuityFacts> {
    const [facts, open, closed] = await Promise.all([
      gatherFacts(ws, ["handover", "checkpoint", "claims", "live"]),
      listOpen(ws.layer),
      readClosed(ws, { limit: RECENT_CLOSED, branch: ws.position.branch }),
    ]);
    const mine = open.filter((o) => o.episode && sameCheckout(o.episode, ws.position)).map((o) => o.episode!);
    const recent = closed.records
      .filter((r) => r.meta.branch === ws.position.branch)
      .slice(0, RECENT_CLOSED)
      .map((r) => ({
        session_id: String(r.meta.session_id),
        path: r.path,
        outcome: String(r.meta.outcome),
        closed_at: String(r.meta.closed_at),
        branch: String(r.meta.branch),
        provider: String(r.meta.provider ?? "none"),
        provider_session: String(r.meta.provider_session ?? "none"),
      }));
    return { facts, open: mine, closed: recent, openProblems: open.filter((o) => o.problem).map((o) => o.problem!) };
  }

  continuity(): Promise<Continuity> {
    return this.cached("continuity", async () => continuityView(await this.facts(await this.here())));
  }

  async episodes(): Promise<{
    open: Continuity["episodes"]["open"];
    open_more: number;
    closed: Continuity["closed"];
    problems: string[];
  }> {
    const c = await this.continuity();
    return { open: c.episodes.open, open_more: c.episodes.open_more, closed: c.closed, problems: c.episodes.problems };
  }

  handovers() {
    return this.cached("handovers", async () => {
      const ws = await this.here();
      const policy = (await ws.policy()).policy;
      const { place, showing } = await placeFor(RECORD_KINDS.handover, ws);
      const explained = await explainOffered(RECORD_KINDS.handover, ws.layer, place, ws.position);
      const record = explained.record ? await view(explained.record, ws.position, policy, ws.at, showing) : null;
      return {
        record: record && explained.sharedBy ? { ...record, shared: explained.sharedBy } : record,
        since: explained.since ? await view(explained.since, ws.position, policy, ws.at, showing) : null,
        candidates: explained.candidates,
        omitted: explained.omitted,
      };
    });
  }

  context(budget?: number) {
    return this.cached(`context:${budget ?? ""}`, async () => {
      const built = contextView(await gatherFacts(await this.here(), CONTEXT_NEEDS), { budget });
      return { text: built.lines.join("\n"), over: built.over, budget: built.budget };
    });
  }

  private wiringAt: { at: number; rows: Promise<Row[]> } | undefined;

  /** Each client's capture as `capture status` says it (shims run, trust and approval read), kept a minute. */
  private wiring(ws: Workspace): Promise<Row[]> {
    const now = this.clock();
    if (this.wiringAt && now - this.wiringAt.at < WIRING_MS) return this.wiringAt.rows;
    const rows = status(ws, { verify: true }).catch(() => [] as Row[]);
    this.wiringAt = { at: now, rows };
    return rows;
  }

  page(): Promise<string> {
    return this.cached("page", async () => {
      const ws = await this.here();
      const facts = await this.facts(ws);
      const continuity = continuityView(facts);
      const policy = await ws.policy().catch(() => undefined);
      const threshold = policy?.policy.session?.stranded_after ?? null;
      const ms = threshold ? parseDuration(threshold) : undefined;
      const stranded = ms === undefined ? [] : await openedBefore(ws, ws.at.getTime() - ms);
      const [rows, closed] = await Promise.all([this.wiring(ws), readClosed(ws, { limit: UPTAKE_LAST })]);
      const wired = wiredProviders(rows);
      const resumed = facts.facts.handover.view;
      return pageHtml({
        continuity,
        resume: resumed ? { objective: resumed.objective, current_state: resumed.current_state } : undefined,
        clock: { offsetMinutes: -ws.at.getTimezoneOffset() },
        providers: rows.filter((r) => wired.has(r.provider)),
        recovery: { stranded: stranded.length, unfinished_closes: readClaims(ws.layer).length, threshold },
        uptake: uptakeReport(
          closed.records.map((r) => r.meta),
          UPTAKE_LAST,
        ),
        refreshSeconds: PAGE_REFRESH_S,
      });
    });
  }
}
