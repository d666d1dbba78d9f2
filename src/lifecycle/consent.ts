/**
 * The one reading of a local consent (the switches of kind "credentials" in policy/index.ts): the
 * person's yes in this checkout's own consent file, which git must not track (a consent file
 * force-added into a stranger's repository is no consent). Some switches also need the tracked
 * policy to ask (`asked`): the repository's wish and the person's yes, both.
 */
import { granted, type CredentialKey, type LoadedPolicy } from "../policy/index.ts";
import { untracked } from "./commit.ts";
import type { Position } from "../repo/where.ts";

/** `tracked`: the consent file says yes, but git tracks it, so it grants nothing. */
export type Grant = { on: boolean; asked: boolean; why?: string; tracked?: true };

export async function consentHere(
  position: Pick<Position, "worktree" | "git">,
  loaded: LoadedPolicy | undefined,
  key: CredentialKey,
  options: { needsAsk?: boolean } = {},
): Promise<Grant> {
  const g = granted(loaded, key);
  const file = loaded?.credentials?.path ?? "the local consent file";
  const [group, name] = key.split(".");
  if (options.needsAsk && !g.asked)
    return { ...g, on: false, why: `${loaded?.path ?? "the policy"} does not set ${key}: true` };
  // The file could not be read as the person's (a link, writable by others): say that, not "not granted".
  const problem = loaded?.credentials?.problem;
  if (!g.on && problem && loaded?.credentials?.granted.size === 0) return { ...g, why: problem };
  if (!g.on)
    return {
      ...g,
      why:
        `${key} is ${g.asked ? "asked by the tracked policy" : "not granted"}, but not granted ` +
        `in ${file} (add \`${group}: { ${name}: true }\` there)`,
    };
  if (!(await untracked(position, loaded?.credentials?.path)))
    return {
      ...g,
      on: false,
      tracked: true,
      why: `${file} is tracked by git: consent from a file anyone can commit is no consent`,
    };
  return g;
}
