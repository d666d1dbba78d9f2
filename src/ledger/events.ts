/** The registered ledger events, read from the embedded `share/events.yaml`. */
import { readData } from "../assets/index.ts";
import { Failure } from "../lib/failure.ts";

export type EventSpec = { id: string; title: string; emittedBy: string; requires: string[] };

let cache: Map<string, EventSpec> | undefined;

export async function eventRegistry(): Promise<Map<string, EventSpec>> {
  if (cache) return cache;
  const data = (await readData("share/events.yaml")) as {
    events?: Record<string, { title?: string; emitted_by?: string; requires?: string[] }>;
  };
  if (!data?.events)
    throw new Failure("internal", "share/events.yaml declares no events", "rebuild the binary from a clean checkout");
  cache = new Map(
    Object.entries(data.events).map(([id, row]) => [
      id,
      { id, title: row.title ?? "", emittedBy: row.emitted_by ?? "", requires: row.requires ?? [] },
    ]),
  );
  return cache;
}

/**
 * The vocabulary a ledger line is checked against, as one string: what a verdict on a line depends
 * on (an event another build registers, or requires other keys of, is judged anew).
 */
export async function vocabulary(): Promise<string> {
  const rows = [...(await eventRegistry()).values()].map((e) => `${e.id}:${e.requires.join(",")}`);
  return rows.sort().join(" ");
}
