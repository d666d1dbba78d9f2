/**
 * The worker thread doctor starts (lib/runtime.ts askWorker): it answers one request, the ledger's
 * pass and the closed records (beside.ts), while the main thread reads the local half's records.
 */
import { answer, type BesideRequest } from "./beside.ts";

type Port = { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void };
const port = globalThis as unknown as Port;

port.onmessage = async (event: MessageEvent) => {
  port.postMessage(await answer(event.data as BesideRequest));
};
