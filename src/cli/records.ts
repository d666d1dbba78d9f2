/** Printing shared by `checkpoint` and `handover`: the resolved record, and the listing. */
import { log } from "../lib/log.ts";
import { Failure } from "../lib/failure.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { RecordKind } from "../records/kinds.ts";
import { listRecords } from "../records/list.ts";
import { resolveLatest, type Resolution } from "../records/resolve.ts";
import { explainOffered, offerShared, type SharedBy } from "../records/shared.ts";
import { placeFor } from "../facts/place.ts";
import { view } from "../records/view.ts";
import { listingLine, noRecordLine, resolvedLines, shownLines } from "../views/records.ts";
import { olderLeftOut, out, outJson } from "./print.ts";
import { join, relative } from "node:path";
import { readRecord } from "../records/record.ts";
import { storeOf } from "../records/store.ts";
import { redactOnRead } from "../lib/redact.ts";
import { gatherFacts } from "../facts/gather.ts";
import { actedJson, actedLines, actedWhole, claimLines } from "../views/common.ts";
import { actedFor } from "../session/closed.ts";
import { CLAIMS_KEPT } from "../records/claims.ts";

const skippedLine = (kind: RecordKind, n: number) =>
  `skipped ${n} malformed ${kind.noun} record(s); \`majordomus ${kind.name} --list\` names them`;

function noRecord(kind: RecordKind, ws: Workspace, path: boolean): void {
  if (path)
    throw new Failure(
      "missing",
      `no ${kind.noun} for this worktree and branch (${ws.position.branch})`,
      `records from other branches are never offered; write one with \`majordomus ${kind.name}\``,
    );
  out(noRecordLine(kind.noun, ws.position.branch));
}

export async function printResolved(
  kind: RecordKind,
  ws: Workspace,
  options: { path?: boolean; json?: boolean },
): Promise<void> {
  const policy = (await ws.policy()).policy;
  const at = ws.at;
  const { place, showing } = await placeFor(kind, ws);
  // A handover another checkout shared through git is offered where this one has none of its own (records/shared.ts).
  const offered = async (r: Resolution): Promise<Resolution & { sharedBy?: SharedBy }> =>
    kind.name === "handover" ? offerShared(r, ws.layer, ws.position) : r;
  const viewOf = async (r: Resolution & { sharedBy?: SharedBy }) => {
    const v = r.record ? await view(r.record, ws.position, policy, at, showing) : undefined;
    return v && r.sharedBy ? { ...v, shared: r.sharedBy } : v;
  };
  if (options.json) {
    const explained = await explainOffered(kind, ws.layer, place, ws.position);
    const record = (await viewOf({ ...explained, skipped: 0 })) ?? null;
    const since = explained.since ? await view(explained.since, ws.position, policy, at, showing) : null;
    const { candidates, omitted } = explained;
    const acted = actedJson(record ? await actedFor(ws, kind.name, record) : undefined, at);
    return outJson("record-resolved", { kind: kind.name, record, since, acted, candidates, omitted });
  }
  const resolution = await offered(await resolveLatest(kind, ws.layer, place));
  if (resolution.skipped > 0) log.warn(skippedLine(kind, resolution.skipped));
  if (!resolution.record) return noRecord(kind, ws, options.path === true);
  const v = (await viewOf(resolution))!;
  if (options.path) {
    // Absolute: `cat "$(majordomus handover --resolve --path)"` works from any folder.
    out(join(ws.position.worktree, v.path));
    return;
  }
  const since = resolution.since ? await view(resolution.since, ws.position, policy, at, showing) : undefined;
  const acted = await actedFor(ws, kind.name, v);
  out(
    resolvedLines(kind.noun, v, since, acted && { said: actedLines(acted, at), whole: actedWhole(acted) }).join("\n"),
  );
}

/** `limit`: the newest that many (0: every one). */
export async function printListing(
  kind: RecordKind,
  ws: Workspace,
  options: { json?: boolean; limit: number },
): Promise<void> {
  const policy = (await ws.policy()).policy;
  const listing = await listRecords(kind, ws.layer, ws.position, policy, ws.at, options.limit);
  for (const r of listing.rejected) log.warn(`${r.path}: ${r.reason}`);
  if (options.json) {
    outJson("record-list", { kind: kind.name, items: listing.rows, rejected: listing.rejected, more: listing.more });
    return;
  }
  if (listing.rows.length === 0) {
    out(`no ${kind.noun} records in this checkout`);
    return;
  }
  for (const r of listing.rows) out(listingLine(r));
  if (listing.more) olderLeftOut(listing.rows.length);
}

/** `--show <file>`: one record of this kind, by its file name, printed whole (what a cut briefing names). */
export async function printRecord(
  kind: RecordKind,
  ws: Workspace,
  file: string,
  options: { json?: boolean },
): Promise<void> {
  // A bare file name of the kind's folder, nothing else: no path, no dot file.
  if (!/^[^/\\]+\.md$/.test(file) || file.startsWith(".") || file === "README.md")
    throw new Failure(
      "usage",
      `--show takes a ${kind.noun} record's file name, not ${JSON.stringify(file)}`,
      `e.g. --show 20261130T115500000Z--000003--main--aaaaaaa.md; \`majordomus ${kind.name} --list\` names them`,
    );
  const store = storeOf(ws.layer, kind);
  const parsed = await readRecord(kind, join(store.dir, file), file);
  if (!parsed.ok)
    throw new Failure(
      "missing",
      `${relative(ws.position.worktree, join(store.dir, file))}: ${parsed.reason}`,
      `\`majordomus ${kind.name} --list\` names this checkout's ${kind.noun} records`,
    );
  // Shown redacted, whatever an earlier version kept.
  const r = { ...parsed.record, body: redactOnRead(parsed.record.body) };
  if (options.json)
    return outJson("record-shown", {
      kind: kind.name,
      path: relative(ws.position.worktree, r.path),
      meta: r.meta,
      body: r.body,
    });
  out(shownLines(kind.noun, relative(ws.position.worktree, r.path), r.meta, r.body).join("\n"));
}

/** `handover --claims`: what the resolved handover cites, each labelled against the tree now (the list a briefing summarises). */
export async function printClaims(ws: Workspace, options: { json?: boolean }): Promise<void> {
  const facts = await gatherFacts(ws, ["handover", "claims"]);
  const v = facts.handover.view;
  if (options.json) {
    outJson("handover-claims", { path: v?.path ?? null, claims: v?.claims ?? null });
    return;
  }
  if (!v) {
    out(noRecordLine("handover", ws.position.branch));
    return;
  }
  out(`Handover ${v.path}`);
  if (!v.claims) {
    out("It cites nothing the repository can check (no path, symbol, commit or package script).");
    return;
  }
  for (const line of claimLines(v.claims, CLAIMS_KEPT)) out(line);
}
