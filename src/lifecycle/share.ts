/**
 * Sharing this checkout's newest authored handover through git, redacted into the tracked half (replacing its earlier
 * share), and withdrawing it. Nothing is committed here.
 */
import { join, relative } from "node:path";
import { stamp } from "../lib/clock.ts";
import { Failure } from "../lib/failure.ts";
import { lstatSync } from "node:fs";
import { ensureDir, exists, unlinkQuiet, writeFileAtomic } from "../lib/fsx.ts";
import { linkRefusal } from "../lib/safe-read.ts";
import { redactForWrite } from "../lib/redact.ts";
import { appendEvent } from "../ledger/store.ts";
import { RECORD_KINDS } from "../records/kinds.ts";
import type { Loaded } from "../records/record.ts";
import { resolveLatest } from "../records/resolve.ts";
import { checkoutOf, renderShared, sharedDir, sharedName, SHARED_SCHEMA } from "../records/shared.ts";
import { gitLine } from "../repo/git.ts";
import type { Workspace } from "../workspace/workspace.ts";

function folderOf(ws: Workspace): string {
  const dir = sharedDir(ws.layer);
  if (!dir)
    throw new Failure(
      "missing",
      `${ws.layer.manifestPath} declares no sections.sessions: shared handovers live in that tracked folder`,
      "add `sessions: repo/sessions` under sections in that file, then run `majordomus init --extend`",
    );
  // A tracked folder is anyone's: never written through a link.
  if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) throw linkRefusal(dir);
  return dir;
}

export function sharedPathOf(ws: Workspace): string {
  return join(folderOf(ws), sharedName(ws.position.branch, checkoutOf(ws.position)));
}

async function ownAuthored(ws: Workspace): Promise<Loaded> {
  const resolution = await resolveLatest(RECORD_KINDS.handover, ws.layer, ws.position);
  const record = resolution.record;
  if (!record || record.meta.how !== "authored" || record.tier !== 0)
    throw new Failure(
      "missing",
      `this checkout has no authored handover of its own for ${ws.position.branch} to share`,
      "write one first (`majordomus handover < body.md`), or pipe it into `majordomus handover --share`",
    );
  return record;
}

export async function shareHandover(ws: Workspace, record?: Loaded): Promise<string> {
  const path = sharedPathOf(ws);
  const source = record ?? (await ownAuthored(ws));
  if (source.meta.how !== "authored")
    throw new Failure("contract", "only an authored handover is shared", "write the handover yourself, then share it");
  const author = await gitLine(ws.position.worktree, ["config", "user.name"]);
  if (!author)
    throw new Failure(
      "missing",
      "git has no user.name here: a shared handover names its author",
      'set it (`git config user.name "Your Name"`), then share again',
    );
  const body = await redactForWrite(source.body, "shared handover");
  const meta = {
    schema: SHARED_SCHEMA,
    created_at: source.meta.created_at,
    shared_at: stamp(),
    author: await redactForWrite(author, "shared handover's author"),
    checkout: checkoutOf(ws.position),
    branch: source.meta.branch,
    head: source.meta.head,
    working_tree: source.meta.working_tree,
    ...(source.meta.claims ? { claims: source.meta.claims } : {}),
  };
  ensureDir(folderOf(ws), 0o755);
  writeFileAtomic(path, renderShared(meta, body), 0o644);
  const rel = relative(ws.position.worktree, path);
  await appendEvent(ws, "handover.shared", { shared_path: rel, created_at: source.meta.created_at });
  return rel;
}

export async function withdrawShared(ws: Workspace): Promise<string | undefined> {
  const path = sharedPathOf(ws);
  if (!exists(path)) return undefined;
  unlinkQuiet(path);
  const rel = relative(ws.position.worktree, path);
  await appendEvent(ws, "handover.withdrawn", { shared_path: rel });
  return rel;
}

export function sharedToCommit(ws: Workspace): string[] {
  const dir = sharedDir(ws.layer);
  if (!dir) return [];
  const path = join(dir, sharedName(ws.position.branch, checkoutOf(ws.position)));
  return exists(path) && !lstatSync(dir).isSymbolicLink() ? [relative(ws.position.worktree, path)] : [];
}
