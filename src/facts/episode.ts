/**
 * An episode's own window: its ledger lines back to its start (never by time), git since it opened, and each
 * checkpoint's first lines.
 */
import type { Clean } from "../lib/redact.ts";
import { readLayerFile } from "../lib/safe-read.ts";
import { join } from "node:path";
import type { Entry } from "../ledger/line.ts";
import { episodeEntries } from "../ledger/read.ts";
import { splitFrontMatter } from "../records/markdown.ts";
import { divergence, type Divergence } from "../records/labels.ts";
import { commitsSince, filesSince, isAncestor, snapshot } from "../repo/status.ts";
import { gitStopped } from "../repo/git.ts";
import type { OpenEpisode } from "../session/store.ts";
import type { Workspace } from "../workspace/workspace.ts";

export { episodeEntries };

export type EpisodeWindow = {
  episode: OpenEpisode;
  entries: Entry[];
  endHead: string;
  /** ["diverged"] when its start is no longer an ancestor, ["unknown"] when git did not answer in the hook's budget. */
  commits: string[];
  /** Through the gate: file names from git history are anyone's. */
  files: Clean[];
  tasks: string[];
  checkpoints: string[];
  handovers: string[];
  decisions: string[];
  questions: string[];
  quotes: Record<string, string[]>;
  /** The first handover whose Next Action a start of this episode quoted as its author's words (uptake measures it). */
  handed?: string;
};

function unique(values: unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v !== "" && v !== "none"))];
}

function quote(worktree: string, rel: string, known?: { path: string; body: string }): string[] {
  try {
    const body = known?.path === rel ? known.body : (splitFrontMatter(readLayerFile(join(worktree, rel)))?.body ?? "");
    return body.split("\n").filter((l) => l.trim() !== "");
  } catch {
    return ["(the record is no longer readable)"];
  }
}

export function windowOf(
  ws: Workspace,
  episode: OpenEpisode,
  entries: Entry[],
  git: Pick<EpisodeWindow, "commits" | "files">,
  known?: { path: string; body: string },
): EpisodeWindow {
  const checkpoints = unique(entries.filter((e) => e.event === "task.checkpoint").map((e) => e.checkpoint_path));
  return {
    episode,
    entries,
    endHead: ws.position.head,
    ...git,
    tasks: unique(entries.map((e) => e.task_id)),
    checkpoints,
    handovers: unique(entries.filter((e) => e.event === "task.handed_over").map((e) => e.handover_path)),
    decisions: unique(entries.filter((e) => e.event === "decision.recorded").map((e) => e.decision)),
    questions: unique(entries.filter((e) => e.event === "question.opened").map((e) => e.question)),
    quotes: Object.fromEntries(checkpoints.map((c) => [c, quote(ws.position.worktree, c, known)])),
    handed: unique(entries.filter((e) => e.event === "session.briefed").map((e) => e.handed))[0],
  };
}

export async function episodeGit(
  ws: Workspace,
  episode: OpenEpisode,
): Promise<Pick<EpisodeWindow, "commits" | "files">> {
  const p = ws.position;
  const start = episode.start_head;
  const diverged = start !== "NONE" && start !== p.head && !(await isAncestor(p, start));
  const commits = diverged
    ? ["diverged"]
    : start === "NONE"
      ? []
      : (await commitsSince(p, start)).map((c) => c.split(" ")[0]!);
  const files = await filesSince(p, start === "NONE" ? undefined : start, await snapshot(p, ws.own), ws.own);
  // A git stopped at the budget said nothing: no divergence, no empty history.
  return { commits: gitStopped() ? ["unknown"] : commits, files };
}

export type SessionContextFacts = {
  at: Date;
  position: Workspace["position"];
  window: EpisodeWindow;
  label: Divergence;
  commitsSince: string[];
  workingTree: string;
  ownRecords: string[];
};

export async function gatherSessionContext(ws: Workspace, episode: OpenEpisode): Promise<SessionContextFacts> {
  const p = ws.position;
  const label = await divergence({ head: episode.start_head, branch: episode.branch }, p);
  const [window, commits, snap] = await Promise.all([
    gatherEpisode(ws, episode),
    label === "advanced" ? commitsSince(p, episode.start_head) : Promise.resolve([]),
    snapshot(p, ws.own),
  ]);
  return {
    at: ws.at,
    position: p,
    window,
    label,
    commitsSince: commits,
    workingTree: snap.workingTree,
    ownRecords: snap.ownRecords,
  };
}

export async function gatherEpisode(ws: Workspace, episode: OpenEpisode): Promise<EpisodeWindow> {
  return windowOf(ws, episode, episodeEntries(ws.ledger.path, episode.session_id), await episodeGit(ws, episode));
}
