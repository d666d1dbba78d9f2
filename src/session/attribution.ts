/**
 * Which episode a process belongs to, decided strictly, never by time: the provider session it names; else the provider
 * session it runs inside (MAJORDOMUS_PROVIDER_SESSION, or a client's own variable such as CLAUDE_CODE_SESSION_ID); else
 * the episode opened by hand. An episode recorded for another worktree is nobody's here.
 */
import type { Layer } from "../layer/manifest.ts";
import { providers } from "../providers/index.ts";
import { sameCheckout, type Position } from "../repo/where.ts";
import { episodeKey, HAND } from "./keys.ts";
import { episodePath, readEpisode, type OpenEpisode } from "./store.ts";
import { env, clientEnv } from "../lib/env.ts";

export async function providerSessionFromEnv(): Promise<string | undefined> {
  const own = env("MAJORDOMUS_PROVIDER_SESSION");
  if (own) return own;
  for (const p of (await providers()).values()) {
    const name = p.hooks?.session_env;
    const value = name ? clientEnv(name) : undefined;
    if (value) return value;
  }
  return undefined;
}

async function openFor(
  layer: Layer,
  position: Pick<Position, "worktree" | "repositoryId" | "repositoryAliases">,
  key: string,
): Promise<OpenEpisode | undefined> {
  const read = await readEpisode(episodePath(layer, key));
  return read.episode && sameCheckout(read.episode, position) ? read.episode : undefined;
}

/**
 * The episode this process belongs to, if any, decided here alone. `named`: the provider session a hook call's payload
 * gives; a hook call (`hook`) that names none belongs to no episode, whatever its environment says.
 */
export async function attributedEpisode(
  layer: Layer,
  position: Pick<Position, "worktree" | "repositoryId" | "repositoryAliases">,
  named?: string,
  hook = false,
): Promise<OpenEpisode | undefined> {
  if (named !== undefined) return openFor(layer, position, episodeKey(named));
  if (hook) return undefined;
  const fromEnv = await providerSessionFromEnv();
  if (fromEnv !== undefined) {
    const episode = await openFor(layer, position, episodeKey(fromEnv));
    if (episode) return episode;
  }
  return openFor(layer, position, HAND);
}
