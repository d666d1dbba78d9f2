/**
 * Uptake over time: of the last closed sessions, how many were handed an authored Next Action and what each did with
 * it (acted, partly, ignored, not provable), per client and per branch, with the median turn of the first action.
 * A pure view over closed records' front matter.
 */
import { field } from "../lib/quote.ts";
import { UPTAKE_STATES, type UptakeState } from "../transcript/uptake.ts";

export type UptakeRow = {
  key: string;
  sessions: number;
  handed: number;
  median_turn: number | null;
} & Record<UptakeState, number>;

export type UptakeReport = {
  last: number;
  sessions: number;
  handed: number;
  by_client: UptakeRow[];
  by_branch: UptakeRow[];
};

type Meta = Record<string, unknown>;

const stateOf = (m: Meta): UptakeState | undefined => {
  const s = (m.uptake as { state?: unknown } | undefined)?.state;
  return (UPTAKE_STATES as readonly unknown[]).includes(s) ? (s as UptakeState) : undefined;
};

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

function rowsBy(metas: readonly Meta[], key: (m: Meta) => string): UptakeRow[] {
  const groups = new Map<string, Meta[]>();
  for (const m of metas) groups.set(key(m), [...(groups.get(key(m)) ?? []), m]);
  return [...groups.entries()]
    .map(([k, ms]) => {
      const handed = ms.filter((m) => stateOf(m) !== undefined);
      const counts = Object.fromEntries(UPTAKE_STATES.map((s) => [s, handed.filter((m) => stateOf(m) === s).length]));
      const turns = handed.flatMap((m) => {
        const turn = (m.uptake as { turn?: unknown }).turn;
        return typeof turn === "number" ? [turn] : [];
      });
      return { key: k, sessions: ms.length, handed: handed.length, ...counts, median_turn: median(turns) } as UptakeRow;
    })
    .sort((a, b) => b.sessions - a.sessions || a.key.localeCompare(b.key));
}

/** `metas`: closed records' front matter, newest first; the first `last` count. */
export function uptakeReport(metas: readonly Meta[], last: number): UptakeReport {
  const shown = metas.slice(0, last);
  return {
    last,
    sessions: shown.length,
    handed: shown.filter((m) => stateOf(m) !== undefined).length,
    by_client: rowsBy(shown, (m) => String(m.provider ?? "none")),
    by_branch: rowsBy(shown, (m) => String(m.branch ?? "unknown")),
  };
}

const COLUMNS = ["sessions", "handed", "acted", "partly", "ignored", "not provable", "median turn"] as const;

function table(title: string, rows: UptakeRow[]): string[] {
  // A client or branch is a tracked record's word: one bounded line, quoted when not a plain name.
  rows = rows.map((r) => ({ ...r, key: field(r.key, 60) }));
  const width = Math.max(title.length, ...rows.map((r) => r.key.length)) + 2;
  const cells = (r: UptakeRow) =>
    [r.sessions, r.handed, r.acted, r.partly, r.ignored, r.not_provable, r.median_turn ?? "—"].map((v, i) =>
      String(v).padStart(COLUMNS[i]!.length),
    );
  return [
    `${title.padEnd(width)}${COLUMNS.join("  ")}`,
    ...rows.map((r) => `${r.key.padEnd(width)}${cells(r).join("  ")}`),
  ];
}

export function uptakeLines(r: UptakeReport): string[] {
  if (r.sessions === 0)
    return [
      "No closed session record yet: uptake is measured when a session that was handed an authored Next Action ends.",
    ];
  return [
    `Uptake of handed Next Actions in the last ${r.sessions} closed session(s): ${r.handed} were handed one.`,
    "",
    ...table("client", r.by_client),
    "",
    ...table("branch", r.by_branch),
    "",
    "acted: every path and command the Next Action names was edited or run; partly: some; ignored: none;",
    "not provable: no transcript to read, or nothing named to look for. median turn: of the first such action.",
  ];
}
