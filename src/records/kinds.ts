/** The two continuity record kinds: where each lives, its schema, and the ledger event a write appends. */
import type { SectionName } from "../layer/manifest.ts";

export type RecordKindName = "handover" | "checkpoint";

export type RecordKind = {
  name: RecordKindName;
  section: SectionName;
  /** Front matter `schema` value this version writes and reads. */
  schema: string;
  event: string;
  /** The ledger payload key naming the record's path. */
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

/**
 * Front matter keys, in the order they are written. The set is closed: a record carrying any
 * other key is rejected, which is also how a transcript can never hide in one.
 */
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

/**
 * Keys a record carries only when it has something to say, written after the others: `claims`,
 * what its text cites that the repository can check (records/claims.ts).
 */
export const OPTIONAL_FRONT_MATTER_KEYS = ["claims"] as const;
