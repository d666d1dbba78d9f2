/** The closed session record's contract (`session/v1`): its closed key set, and the names no record may carry. */
export const RECORD_KEYS = [
  "schema",
  "session_id",
  "provider",
  "provider_session",
  "opened_by",
  "worker",
  "opened_at",
  "closed_at",
  "outcome",
  "branch",
  "start_head",
  "end_head",
  "commits",
  "changed_files",
  "tasks",
  "checkpoints",
  "handovers",
  "decisions",
  "questions",
  "uptake",
] as const;

/** Names a conversation would arrive under; a document carrying one is a blocking failure. */
export const TRANSCRIPT_KEYS = ["messages", "completion", "response", "transcript", "reply", "assistant"] as const;

export type Outcome = "closed" | "interrupted";
