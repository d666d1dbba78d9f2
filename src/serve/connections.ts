/**
 * One MCP connection's episode, for a client without hooks (only when `mcp.connection_episodes` is asked and granted
 * locally). Every message is a heartbeat; attach opens or resumes, detach closes, a drop only detaches for the grace,
 * and shutdown closes. These go through the lifecycle's own code: one writer.
 */
import { wall } from "../lib/clock.ts";
import { Failure } from "../lib/failure.ts";
import { workspace } from "../workspace/workspace.ts";
import { type LoadedPolicy } from "../policy/index.ts";
import { consentHere } from "../lifecycle/consent.ts";
import { attach, closeConnection, detached, expireDetached } from "../lifecycle/connection.ts";
import type { OpenEpisode } from "../session/store.ts";

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

export class Connection {
  private attached?: OpenEpisode;
  private lastMessageAt = wall();
  private chain: Promise<unknown> = Promise.resolve();

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.chain.then(op);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private constructor(
    readonly cwd: string,
    private readonly policy: LoadedPolicy,
  ) {}

  static async open(cwd: string): Promise<Connection | undefined> {
    const ws = await workspace(cwd, undefined, { readOnly: true });
    const policy = await ws.policy();
    const grant = await consentHere(ws.position, policy, "mcp.connection_episodes", { needsAsk: true });
    if (!grant.on) return undefined;
    const connection = new Connection(cwd, policy);
    await expireDetached(await workspace(cwd), policy);
    return connection;
  }

  heartbeat(): void {
    this.lastMessageAt = wall();
  }

  attach(client: string, externalId: string): Promise<{ session_id: string; resumed: boolean }> {
    return this.serial(() => this.attachNow(client, externalId));
  }

  detach(): Promise<{ session_id: string; record: string | null }> {
    return this.serial(() => this.detachNow());
  }

  dropped(): Promise<void> {
    return this.serial(() => this.droppedNow());
  }

  shutdown(): Promise<void> {
    return this.serial(() => this.shutdownNow());
  }

  private async attachNow(client: string, externalId: string): Promise<{ session_id: string; resumed: boolean }> {
    if (!ID.test(client) || !ID.test(externalId))
      throw new Failure(
        "usage",
        "client and external_id are 1 to 128 letters, digits, dots, colons, dashes or underscores",
      );
    if (this.attached && this.attached.provider_session !== externalId)
      throw new Failure(
        "refused",
        `this connection is attached to ${this.attached.session_id} already; session_detach first`,
      );
    const ws = await workspace(this.cwd, externalId);
    await expireDetached(ws, this.policy);
    const { episode, resumed } = await attach(ws, client, externalId);
    this.attached = episode;
    return { session_id: episode.session_id, resumed };
  }

  private async detachNow(): Promise<{ session_id: string; record: string | null }> {
    const episode = this.attached;
    if (!episode)
      throw new Failure("missing", "this connection is attached to no episode", "call session_attach first");
    this.attached = undefined;
    const record = await closeConnection(
      await workspace(this.cwd, episode.provider_session),
      episode,
      "closed",
      "the client detached",
      this.policy,
    );
    return { session_id: episode.session_id, record: record ?? null };
  }

  private async droppedNow(): Promise<void> {
    const episode = this.attached;
    if (!episode) return;
    this.attached = undefined;
    await detached(
      await workspace(this.cwd, episode.provider_session),
      episode,
      "the connection dropped",
      this.lastMessageAt,
    );
  }

  private async shutdownNow(): Promise<void> {
    const episode = this.attached;
    if (!episode) return;
    this.attached = undefined;
    await closeConnection(
      await workspace(this.cwd, episode.provider_session),
      episode,
      "closed",
      "shutdown",
      this.policy,
    );
  }
}
