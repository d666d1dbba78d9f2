/**
 * Nothing is written to the local half unless git says it is ignored, or one `git add -A` would publish it. The answer
 * of `git check-ignore` is remembered against the ignore files it depends on, so hooks ask only when one changes.
 */
import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Failure } from "../lib/failure.ts";
import { writeFileAtomic } from "../lib/fsx.ts";
import type { Layer } from "../layer/manifest.ts";
import { git } from "../repo/git.ts";
import type { Position } from "../repo/where.ts";
import { env } from "../lib/env.ts";

const MEMO = "majordomus-local-ignored";

function fingerprint(position: Position, layer: Layer, probe: string): string {
  const files = [
    join(position.worktree, ".gitignore"),
    join(layer.dir, ".gitignore"),
    join(layer.dir, layer.manifest.local.path, ".gitignore"),
    join(position.gitDir, "info", "exclude"),
    join(position.commonDir, "info", "exclude"),
    join(position.commonDir, "config"),
    join(env("XDG_CONFIG_HOME") ?? join(env("HOME") ?? "", ".config"), "git", "ignore"),
    layer.manifestPath,
  ];
  const parts = files.map((f) => {
    const s = statSync(f, { throwIfNoEntry: false });
    return s ? `${f}:${s.size}:${s.mtimeMs}:${s.ino}` : `${f}:-`;
  });
  return [probe, ...parts].join("\n");
}

export async function requireIgnored(position: Position, layer: Layer): Promise<void> {
  const local = join(layer.dir, layer.manifest.local.path);
  const probe = relative(position.worktree, join(local, "state", "ledger.jsonl"));
  const memo = join(position.gitDir, MEMO);
  const print = fingerprint(position, layer, probe);
  try {
    if (readFileSync(memo, "utf8") === print) return;
  } catch {}
  const answer = await git(position.worktree, ["check-ignore", "-q", "--no-index", probe]);
  if (answer.status === 0) {
    try {
      writeFileAtomic(memo, print, 0o600, { durable: false });
    } catch {}
    return;
  }
  const rel = relative(position.worktree, local);
  throw new Failure(
    "refused",
    answer.status === 1
      ? `${rel}/ is not ignored by git, so its prompts and ledger could be committed; nothing was written`
      : `git could not say whether ${rel}/ is ignored ` +
          `(${answer.stderr.trim() || `exit ${answer.status}`}); nothing was written`,
    `add \`${rel}/\` to .gitignore (\`majordomus init --extend\` adds it)`,
  );
}
