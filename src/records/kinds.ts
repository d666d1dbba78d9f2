/** The two continuity record kinds: where each lives, its schema, and the ledger event a write appends. */
import type { SectionName } from "../layer/manifest.ts";

export type RecordKindName = "handover" | "checkpoint";

export type RecordKind = {
  name: RecordKindName;
  section: SectionName;
  schema: string;
  event: string;
  pathKey: string;
  noun: string;
};

export const RECORD_KINDS = {
  handover: {
    name: "handover",
    section: "handovers",
    schema: "handover/v1",
    event: "task.handed_over",
    pathKey: "handover_path",
    noun: "handover",
  },
  checkpoint: {
    name: "checkpoint",
    section: "checkpoints",
    schema: "checkpoint/v1",
    event: "task.checkpoint",
    pathKey: "checkpoint_path",
    noun: "checkpoint",
  },
} as const satisfies Record<RecordKindName, RecordKind>;

/** In write order. Closed: a record with any other key is rejected, so no transcript can hide in one. */
export const FRONT_MATTER_KEYS = [
  "schema",
  "created_at",
  "seq",
  "how",
  "task_id",
  "session",
  "repository_id",
  "worktree",
  "branch",
  "head",
  "working_tree",
  "changed_files",
] as const;

export type FrontMatterKey = (typeof FRONT_MATTER_KEYS)[number];

export const OPTIONAL_FRONT_MATTER_KEYS = ["claims"] as const;
