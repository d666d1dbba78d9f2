/**
 * Provider session ids come from a payload we do not control. Before one names a file it is
 * reduced to [A-Za-z0-9._-] (at most 64 characters); when that changed anything, a digest of the
 * original is appended, so two different ids never share a key and `../x` names nothing outside.
 */
import { createHash } from "../lib/runtime.ts";

export const HAND = "hand";
const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function episodeKey(providerSession: string | undefined): string {
  if (providerSession === undefined) return HAND;
  if (SAFE.test(providerSession) && providerSession !== HAND && !providerSession.includes("..")) return providerSession;
  const cleaned = providerSession
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.\.+/g, "-")
    .replace(/^[-.]+/, "")
    .slice(0, 48);
  return `${cleaned || "session"}-${createHash("sha256", providerSession).slice(0, 12)}`;
}

/** The key of an episode's files: its client session's, or `hand` for one opened by hand (provider_session none). */
export const keyOf = (episode: { provider_session: string }): string =>
  episodeKey(episode.provider_session === "none" ? undefined : episode.provider_session);
