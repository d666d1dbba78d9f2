/**
 * One MCP connection's episode, for a client without hooks (off unless the policy asks for
 * `mcp.connection_episodes` and the local consent file grants it). Every message the client sends
 * is a heartbeat; `session_attach` opens or resumes the episode, `session_detach` closes it as
 * closed, a dropped connection only detaches (the episode waits for a reattach within the grace),
 * and stopping the server closes it with reason shutdown. These are the MCP server's only writes,
 * and they go through the lifecycle's own episode code: there is one writer.
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
  /** One operation at a time, in the order they came: a drop waits for an attach still being written. */
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

  /** A connection that may keep episodes, or undefined when this checkout has not consented to it. */
  static async open(cwd: string): Promise<Connection | undefined> {
    const ws = await workspace(cwd, undefined, { readOnly: true });
    const policy = await ws.policy();
    // Asked by the policy and granted in an untracked local consent file, as every local consent is.
    const grant = await consentHere(ws.position, policy, "mcp.connection_episodes", { needsAsk: true });
    if (!grant.on) return undefined;
    const connection = new Connection(cwd, policy);
    // Episodes whose connection dropped too long ago are closed first.
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

  /** The client went away without detaching: the episode waits for a reattach within the grace. */
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

  /** The server is stopping: the attached episode closes with reason shutdown. */
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
